package bench

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ExternalConfig is a run of the external mode (RunExternal): hookd as
// separate processes against a Temporal server process and PostgreSQL,
// once per worker count.
type ExternalConfig struct {
	// Hookd is the path of the hookd binary (`make build` writes bin/hookd).
	Hookd string
	// Workers are the worker counts to measure, one configuration each, in
	// order, every one with a fresh Temporal data dir and database.
	Workers []int
	// N events (one delivery each) are posted per configuration by Clients
	// concurrent clients through POST /v1/events.
	N, Clients int
	// Serve runs N `hookd serve` processes (worker and API in one, with
	// eager start) instead of N workers and one API; the events are
	// spread over their APIs in turn, as a load balancer would.
	Serve bool
	// TemporalPostgres persists the Temporal server in the bench's
	// PostgreSQL (databases temporal and temporal_visibility, beside
	// hookd's endpoint store) instead of SQLite files; PostgreSQL's CPU
	// then includes Temporal's persistence.
	TemporalPostgres bool
	// TemporalShards is the Temporal server's history shard count (zero:
	// hookd's default, 1).
	TemporalShards int
	// AllVisibilityIndexes keeps every index of the Temporal server's
	// visibility table (--temporal-all-visibility-indexes).
	AllVisibilityIndexes bool
	// StockExecutionStore runs the Temporal server's execution store as
	// shipped (--temporal-stock-execution-store).
	StockExecutionStore bool
	// StockVisibilityColumns keeps the generated columns of the Temporal
	// server's visibility table on PostgreSQL
	// (--temporal-stock-visibility-columns).
	StockVisibilityColumns bool
	// TemporalCompression is the gRPC compression hookd's processes use on
	// their calls to the Temporal server (--temporal-compression; empty:
	// hookd's default, none).
	TemporalCompression string
	// ProfileDir, when set, receives a CPU profile of every hookd process
	// (the Temporal server's and each worker, API or serve process's)
	// over the first ProfileWindow of the saturation, fetched from the
	// process's --pprof-addr: <name>-<workers>.prof.
	ProfileDir string
	// Durable runs the bench's PostgreSQL with fsync, synchronous_commit
	// and full_page_writes on, as production runs it (default: off).
	Durable bool
	// Timeout bounds the wait for the deliveries of one phase.
	Timeout time.Duration
	// Log receives progress.
	Log *slog.Logger
}

// maxWorkers bounds a worker count: each is a process on this machine.
const maxWorkers = 16

// ParseWorkerCounts parses a comma-separated list of worker counts such
// as "1,2": each from 1 to 16, no repeats.
func ParseWorkerCounts(s string) ([]int, error) {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		n, err := strconv.Atoi(part)
		if err != nil || n < 1 || n > maxWorkers {
			return nil, fmt.Errorf("worker count %q: want a number from 1 to %d", part, maxWorkers)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("worker count %d given twice", n)
		}
		out = append(out, n)
	}
	return out, nil
}

// withDefaults fills zero fields and checks the rest.
func (c ExternalConfig) withDefaults() (ExternalConfig, error) {
	if c.Hookd == "" {
		c.Hookd = "bin/hookd"
	}
	if len(c.Workers) == 0 {
		c.Workers = []int{1, 2}
	}
	if c.N == 0 {
		c.N = Defaults.N
	}
	if c.Clients == 0 {
		c.Clients = Defaults.Clients
	}
	if c.Timeout <= 0 {
		c.Timeout = Defaults.Timeout
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.N < 0 || c.Clients < 0 {
		return c, errors.New("bench: N and clients must be positive")
	}
	for _, n := range c.Workers {
		if n < 1 || n > maxWorkers {
			return c, fmt.Errorf("bench: worker count %d: want 1 to %d", n, maxWorkers)
		}
	}
	fi, err := os.Stat(c.Hookd)
	if err != nil {
		return c, fmt.Errorf("bench: hookd binary (make build writes bin/hookd): %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return c, fmt.Errorf("bench: hookd binary %s is not an executable file", c.Hookd)
	}
	return c, nil
}
