# make bench: hookd's benchmark of throughput, latency and cost per delivery
# against the naive Temporal baseline (docs/performance.md). It is
# not part of `make test`. The Makefile includes it with:
#   include cmd/hookd-bench/bench.mk
# The benchmark is its own command (cmd/hookd-bench), so the baseline's test
# server is never linked into hookd.
# Pass flags with BENCH_FLAGS, e.g. make bench BENCH_FLAGS="-storm-n 2000".
BENCH_FLAGS ?=

bench-build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/hookd-bench ./cmd/hookd-bench

bench: bench-build
	./bin/hookd-bench $(BENCH_FLAGS)

# make bench-parked-curve: the retry storm at 10,000, 50,000 and 100,000
# parked deliveries, each count in its own process so that one
# count's SQLite caches and Go heap do not carry into the next. Long: at
# ~40-100 events/s ingest and ~20-40/s drain, 100,000 take well over an
# hour each way.
PARKED_CURVE ?= 10000 50000 100000

bench-parked-curve: bench-build
	for n in $(PARKED_CURVE); do \
		./bin/hookd-bench -n 1000 -baseline-n -1 -light-duration=-1s -fanout-n -1 -storm-n $$n -timeout 3h $(BENCH_FLAGS) || exit 1; \
	done

# make bench-external: hookd as separate processes:
# PostgreSQL, one Temporal server process (`hookd dev --only-temporal`), 1
# then 2 `hookd worker` and one `hookd api`, each worker count with fresh
# state; deliveries/s and CPU ms per delivery of every process. Builds both
# binaries first. E.g. make bench-external BENCH_FLAGS="-n 3000 -workers 1,2".
bench-external: build bench-build
	./bin/hookd-bench -external -hookd bin/hookd $(BENCH_FLAGS)

# make bench-shapes: what Temporal costs per delivery with a workflow per
# delivery (1:1 and fan-out x10) against one workflow per event making its
# deliveries as local activities, on the embedded server without hookd,
# beside hookd's own 1:1 and fan-out phases (docs/performance.md).
bench-shapes: bench-build
	./bin/hookd-bench -n 3000 -baseline-n -1 -light-duration=-1s -storm-n -1 -shapes-n 3000 $(BENCH_FLAGS)

.PHONY: bench-build bench-parked-curve bench-external bench-shapes
