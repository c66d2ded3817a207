# make bench: hookd's benchmark of throughput, latency and cost per delivery
# against the naive Temporal baseline (issue 9; docs/performance.md). It is
# not part of `make test`. The Makefile includes it with:
#   include bench/bench.mk
# Pass flags with BENCH_FLAGS, e.g. make bench BENCH_FLAGS="-storm-n 2000".
BENCH_FLAGS ?=

bench: build
	./bin/hookd bench $(BENCH_FLAGS)
