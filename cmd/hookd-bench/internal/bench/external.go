package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// Kinds of process the external mode measures, in the report's order.
const (
	kindWorker   = "hookd worker"
	kindAPI      = "hookd api"
	kindServe    = "hookd serve"
	kindTemporal = "Temporal server"
	kindPostgres = "PostgreSQL"
	kindBench    = "bench (load + receiver)"
)

// procRoot is one kind of process and the PIDs whose CPU (with their
// direct children's) is that kind's.
type procRoot struct {
	kind string
	pids []int
}

// ProcessUsage is what one kind of process used over the measured phase.
type ProcessUsage struct {
	Kind string
	// CPU is utime+stime summed over the kind's processes.
	CPU time.Duration
	// RSSMB is each process's VmRSS at the end of the phase; empty for
	// PostgreSQL (its shared buffers would be counted once per backend)
	// and the bench.
	RSSMB []float64
}

// ExternalRun is one configuration of the external mode.
type ExternalRun struct {
	Workers int
	Serve   bool
	// LoadBefore and LoadAfter are the machine's load averages around the
	// measured phase.
	LoadBefore, LoadAfter string
	Saturation            LoadResult
	// Processes are the workers (summed), the API, Temporal, PostgreSQL
	// and the bench process; with Serve, the serve processes (summed)
	// instead of workers and API.
	Processes []ProcessUsage
	// PostgresByDatabase splits PostgreSQL's CPU by the database of each
	// backend (pgByDatabase): with TemporalPostgres, hookd's endpoint
	// store ("postgres") apart from Temporal's two databases.
	PostgresByDatabase map[string]time.Duration
	// PostgresCounts are the transactions and rows read by database over
	// the phase and pgSettle after it (pgStats), a figure the machine's
	// speed does not move.
	PostgresCounts map[string]pgCounts
	// StopErr is set when a child did not exit cleanly on SIGTERM.
	StopErr error
}

// ExternalResult is a run of the external mode.
type ExternalResult struct {
	Config                ExternalConfig
	Machine               string
	Started               time.Time
	LoadBefore, LoadAfter string
	Runs                  []ExternalRun
}

// RunExternal measures hookd as separate processes (a Temporal server
// process, PostgreSQL, cfg.Workers workers and one API) once per worker
// count, each with fresh state, and writes the report to out, also when a
// configuration fails.
func RunExternal(ctx context.Context, cfg ExternalConfig, out io.Writer) (ExternalResult, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return ExternalResult{}, err
	}
	res := ExternalResult{Config: cfg, Machine: machine(), Started: time.Now(), LoadBefore: loadAvg()}
	for i, n := range cfg.Workers {
		if i > 0 {
			settle(ctx)
		}
		run, err := runExternalOnce(ctx, cfg, n)
		res.Runs = append(res.Runs, run)
		if err != nil {
			err = fmt.Errorf("%d worker(s): %w", n, err)
			res.LoadAfter = loadAvg()
			reportExternal(out, res)
			return res, err
		}
	}
	res.LoadAfter = loadAvg()
	reportExternal(out, res)
	return res, nil
}

// runExternalOnce starts one configuration, warms it up, measures a
// saturation of cfg.N deliveries and stops it.
func runExternalOnce(ctx context.Context, cfg ExternalConfig, workers int) (run ExternalRun, err error) {
	run.Workers, run.Serve = workers, cfg.Serve
	cfg.Log.Info("external: starting", "workers", workers, "serve", cfg.Serve)
	cl, err := startCluster(ctx, cfg, workers)
	if err != nil {
		return run, err
	}
	defer func() {
		run.StopErr = cl.stop()
		if run.StopErr != nil {
			cfg.Log.Warn("external: unclean stop", "workers", workers, "err", run.StopErr)
		}
	}()
	rc, err := startReceiver()
	if err != nil {
		return run, err
	}
	defer rc.close()
	if _, err := cl.targets[0].createEndpoint(ctx, rc.URL, eventType, nil); err != nil {
		return run, err
	}
	start := inTurn(cl.targets, eventType)
	lcfg := Config{Log: cfg.Log, Timeout: cfg.Timeout}
	name := fmt.Sprintf("external %d %s", workers, map[bool]string{false: "worker(s)", true: "serve process(es)"}[cfg.Serve])
	if _, err := runLoad(ctx, lcfg, rc, loadSpec{name: name + " warm-up", ids: eventIDs("xwarm", min(100, cfg.N)), start: start, clients: 16, batch: 1}); err != nil {
		return run, err
	}
	settle(ctx)

	roots := cl.roots()
	run.LoadBefore = loadAvg()
	before, err := snapshotRoots(roots)
	if err != nil {
		return run, err
	}
	statsBefore, err := pgStats(ctx, cl.pg.URL)
	if err != nil {
		return run, err
	}
	waitProfiles := func() error { return nil }
	if cfg.ProfileDir != "" {
		waitProfiles = profileCPU(ctx, cfg.ProfileDir, workers, cl.profiles, ProfileWindow)
	}
	sat, lerr := runLoad(ctx, lcfg, rc, loadSpec{name: name + " saturation", ids: eventIDs("xsat", cfg.N), start: start, clients: cfg.Clients, batch: 1})
	after, serr := snapshotRoots(roots)
	lerr = errors.Join(lerr, waitProfiles())
	run.LoadAfter = loadAvg()
	run.Saturation = sat
	if serr == nil {
		run.Processes = usageByKind(roots, before, after)
		run.PostgresByDatabase = pgByDatabase("/proc", before[cl.pgPID], after[cl.pgPID])
	}
	run.Processes = append(run.Processes, ProcessUsage{Kind: kindBench, CPU: sat.Usage.CPU})
	var perr error
	select {
	case <-ctx.Done():
	case <-time.After(pgSettle):
		var statsAfter map[string]pgCounts
		if statsAfter, perr = pgStats(ctx, cl.pg.URL); perr == nil {
			run.PostgresCounts = pgCountsBetween(statsBefore, statsAfter, "postgres")
		}
	}
	return run, errors.Join(lerr, serr, perr)
}

// inTurn posts each start to the next of targets' APIs.
func inTurn(targets []*hookdTarget, eventType string) starter {
	starts := make([]starter, len(targets))
	for i, t := range targets {
		starts[i] = t.apiStarter(eventType)
	}
	var next atomic.Uint64
	return func(ctx context.Context, ids []string) error {
		return starts[(next.Add(1)-1)%uint64(len(starts))](ctx, ids)
	}
}

// snapshotRoots reads /proc once and takes every root's tree.
func snapshotRoots(roots []procRoot) (map[int]treeSnapshot, error) {
	all, err := readProcs("/proc")
	if err != nil {
		return nil, err
	}
	out := map[int]treeSnapshot{}
	for _, r := range roots {
		for _, pid := range r.pids {
			t, err := snapshotTree(all, pid)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.kind, err)
			}
			out[pid] = t
		}
	}
	return out, nil
}

// usageByKind sums each kind's CPU between the snapshots and reads the
// RSS of its processes (but PostgreSQL's) now.
func usageByKind(roots []procRoot, before, after map[int]treeSnapshot) []ProcessUsage {
	var out []ProcessUsage
	for _, r := range roots {
		u := ProcessUsage{Kind: r.kind}
		var t uint64
		for _, pid := range r.pids {
			t += treeCPU(before[pid], after[pid])
			if r.kind != kindPostgres {
				u.RSSMB = append(u.RSSMB, procRSSMB(pid))
			}
		}
		u.CPU = ticks(t)
		out = append(out, u)
	}
	return out
}
