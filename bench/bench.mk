# make bench: hookd's benchmark of throughput, latency and cost per delivery
# against the naive Temporal baseline (issue 9; docs/performance.md). It is
# not part of `make test`. The Makefile includes it with:
#   include bench/bench.mk
# The benchmark is its own command (cmd/hookd-bench), so the baseline's test
# server is never linked into hookd.
# Pass flags with BENCH_FLAGS, e.g. make bench BENCH_FLAGS="-storm-n 2000".
BENCH_FLAGS ?=

bench-build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/hookd-bench ./cmd/hookd-bench

bench: bench-build
	./bin/hookd-bench $(BENCH_FLAGS)

.PHONY: bench-build
