package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hookd/hookd/cmd/hookd-bench/internal/bench"
	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/worker"
)

// benchOptions are hookd-bench's settings: the run's and the command's own.
type benchOptions struct {
	cfg             bench.Config
	cpuProfile      string
	memProfile      string
	drainProfile    string
	fanoutProfile   string
	throttleProfile string
	pacedProfile    string
	logLevel        slog.Level
	// external runs only the external mode (bench.RunExternal) with ext;
	// -n, -clients and -timeout apply to it too.
	external bool
	ext      bench.ExternalConfig
}

func parseBenchFlags(args []string, out io.Writer) (benchOptions, error) {
	var o benchOptions
	d := bench.Defaults
	fs := newFlagSet("hookd-bench", out)
	fs.IntVar(&o.cfg.N, "n", d.N, "deliveries in the saturation phase")
	fs.IntVar(&o.cfg.Clients, "clients", d.Clients, "concurrent API clients at saturation")
	fs.IntVar(&o.cfg.Batch, "batch", d.Batch, "events per API request (>1 uses POST /v1/events/batch)")
	fs.StringVar(&o.cfg.Ingest, "ingest", d.Ingest, `how saturation starts deliveries: "api", or in-process "direct" (eager start) / "direct-lazy" (no eager start)`)
	fs.Float64Var(&o.cfg.LightRate, "light-rate", d.LightRate, "events/s of the light load")
	fs.DurationVar(&o.cfg.LightDuration, "light-duration", d.LightDuration, "length of the light load (negative skips it)")
	fs.IntVar(&o.cfg.FanoutN, "fanout-n", d.FanoutN, "events in the fan-out phase, each matching -fanout-width endpoints (negative skips it)")
	fs.IntVar(&o.cfg.FanoutWidth, "fanout-width", d.FanoutWidth, "endpoints (and receivers) every fan-out event matches")
	fs.IntVar(&o.cfg.FanoutClients, "fanout-clients", 0, "clients posting the fan-out's events (0: -clients; -clients / -fanout-width asks for as many deliveries at once as the 1:1 phase)")
	fs.StringVar(&o.cfg.FanoutFilter, "fanout-filter", "", `run the fan-out phase again to endpoints that each carry this content filter (it must accept the bench's payload), such as 'payload.amount > 1000 && payload.currency == "EUR"'; empty skips it`)
	fs.IntVar(&o.cfg.ShapesN, "shapes-n", d.ShapesN, "deliveries in each shape of the workflow-shape experiment (a workflow per delivery against one per event, on the embedded server without hookd); zero skips it")
	fs.IntVar(&o.cfg.HistorySample, "history-sample", d.HistorySample, "completed deliveries whose history is counted")
	fs.IntVar(&o.cfg.BaselineN, "baseline-n", d.BaselineN, "deliveries through the naive baseline (negative skips it)")
	fs.IntVar(&o.cfg.BaselineStarters, "baseline-starters", d.BaselineStarters, "concurrent ExecuteWorkflow callers of the baseline")
	fs.IntVar(&o.cfg.StormN, "storm-n", d.StormN, "deliveries parked in the retry storm (negative skips it)")
	schedule := fs.String("storm-schedule", strings.Join(d.StormSchedule, ","), "retry schedule of the storm's endpoint")
	fs.BoolVar(&o.cfg.StormRecover, "storm-recover", false, "start the storm's drain with POST /v1/endpoints/{id}/recover instead of waiting for the circuit's next probe")
	fs.IntVar(&o.cfg.RecoverImmediate, "recover-immediate", 0, "largest backlog hookd's recover signals at once (zero: hookd's default); more is woken at the drain's pace")
	fs.IntVar(&o.cfg.ThrottleN, "throttle-n", 0, "events to an endpoint limited to -throttle-rate beside as many to an unlimited one, that flood again beside as many posted at the rate to another unlimited one, the unlimited alone before and after, and both at the same pace alone (zero skips it)")
	fs.IntVar(&o.cfg.ThrottleRate, "throttle-rate", 50, "the throttle phase's rate limit, per second")
	fs.IntVar(&o.cfg.ThrottleBurst, "throttle-burst", 5, "the throttle phase's burst")
	fs.IntVar(&o.cfg.ThrottleRounds, "throttle-rounds", 1, "how many rounds of the throttle phase's whole sequence to run, each measure interleaved with the others; more than one prints each round's figures and their medians")
	fs.IntVar(&o.cfg.HeldN, "held-n", 0, "deliveries held by a disabled endpoint while the process is measured (zero skips it)")
	fs.DurationVar(&o.cfg.HeldWindow, "held-window", 90*time.Second, "how long the held phase measures")
	fs.DurationVar(&o.cfg.DisabledPoll, "disabled-poll", 0, "how often hookd's held deliveries check a disabled endpoint's switch (0: hookd's default)")
	fs.IntVar(&o.cfg.StormHealthyN, "storm-healthy-n", d.StormHealthyN, "healthy deliveries posted at saturation while the storm's are parked (negative skips it)")
	fs.DurationVar(&o.cfg.StormHold, "storm-hold", 0, "keep the receiver down this long after all deliveries parked")
	fs.DurationVar(&o.cfg.Circuit.BaseCooldown, "circuit-cooldown", 0, "hookd's circuit cooldown (0: hookd's default, "+circuit.DefaultPolicy().BaseCooldown.String()+")")
	fs.DurationVar(&o.cfg.Circuit.MaxCooldown, "circuit-max-cooldown", 0, "cap of the doubling cooldown (0: hookd's default, "+circuit.DefaultPolicy().MaxCooldown.String()+")")
	fs.IntVar(&o.cfg.WorkflowTaskPollers, "workflow-task-pollers", 0, "workflow-task polls hookd's worker keeps open (0: hookd's default, "+strconv.Itoa(worker.DefaultWorkflowTaskPollers)+")")
	fs.IntVar(&o.cfg.WorkflowCacheSize, "workflow-cache", 0, "deliveries hookd's worker keeps in memory between tasks (0: hookd's default, "+strconv.Itoa(worker.DefaultWorkflowCacheSize)+")")
	fs.BoolVar(&o.cfg.TemporalTuning.AllVisibilityIndexes, "all-visibility-indexes", false, "keep every index of Temporal's visibility table, 58 in SQLite and 73 in PostgreSQL (default: the 18 hookd and the Web UI use); external mode passes it to the Temporal server process")
	fs.BoolVar(&o.cfg.TemporalTuning.StockFTSTrigger, "stock-fts-trigger", false, "keep Temporal's full-text update trigger as shipped (default: it runs only when a full-text column changes)")
	fs.BoolVar(&o.cfg.TemporalTuning.VisibilityAutocommit, "visibility-autocommit", false, "commit each write to the SQLite visibility file on its own, as Temporal's plugin does (default: writes made at once share a commit)")
	fs.BoolVar(&o.cfg.TemporalTuning.NoStatementCache, "no-stmt-cache", false, "let Temporal's SQLite plugin compile every statement on each call (default: each connection keeps its statements prepared)")
	fs.BoolVar(&o.cfg.TemporalTuning.StockVisibilityColumns, "stock-visibility-columns", false, "external mode with -temporal-postgres: keep the generated columns of Temporal's visibility table as shipped (default: plain columns a trigger fills); passed to the Temporal server process")
	fs.BoolVar(&o.cfg.TemporalTuning.StockExecutionStore, "stock-execution-store", false, "run Temporal's execution store as shipped (default: a run's first read after its creation is answered from what the creation wrote, its start's workflow-task timeout timer is deleted when it closes, and its new history is written in its own transaction); external mode passes it to the Temporal server process")
	fs.Var(dynamicFlag{&o.cfg.TemporalTuning.Dynamic}, "temporal-dynamic", "override a Temporal dynamic-config key of the embedded server, key=value (repeatable; value: bool, integer, duration or string)")
	fs.BoolVar(&o.cfg.Tracing, "tracing", false, "run hookd with tracing on, every span sampled and discarded by the exporter, to measure what tracing costs (default: off)")
	fs.BoolVar(&o.cfg.PlaintextPayloads, "plaintext-payloads", false, "run hookd with --payload-encryption=off (default: payloads encrypted), to measure what encryption costs")
	fs.BoolVar(&o.cfg.NoEventKeys, "no-event-keys", false, "run hookd with --event-keys=off (default: each event's body sealed with its own key), to measure what per-event keys cost")
	fs.DurationVar(&o.cfg.Timeout, "timeout", d.Timeout, "bound on each wait for deliveries")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of hookd's saturation phase to this file")
	fs.StringVar(&o.fanoutProfile, "fanout-cpuprofile", "", "write a CPU profile of hookd's fan-out phase to this file")
	fs.StringVar(&o.throttleProfile, "throttle-cpuprofile", "", "write a CPU profile of the rate-limit phase's throttled deliveries to this file")
	fs.StringVar(&o.pacedProfile, "paced-cpuprofile", "", "write a CPU profile of the rate-limit phase's unthrottled deliveries at the same pace to this file")
	fs.StringVar(&o.drainProfile, "drain-cpuprofile", "", "write a CPU profile of the storm's drain (receiver back to all delivered) to this file")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a heap profile, taken once the storm's deliveries are parked, to this file")
	fs.BoolVar(&o.external, "external", false, "run only the external mode: hookd as processes (-hookd) against a Temporal server process and PostgreSQL, once per -workers count (uses -n, -clients, -timeout)")
	fs.StringVar(&o.ext.Hookd, "hookd", "bin/hookd", "hookd binary the external mode runs (make build writes it)")
	workers := fs.String("workers", "1,2", "worker counts the external mode measures, one after the other, each with fresh state")
	fs.BoolVar(&o.ext.Serve, "serve", false, "external mode: run that many `hookd serve` processes (worker and API in one, eager start) instead of workers and one API")
	fs.BoolVar(&o.ext.TemporalPostgres, "temporal-postgres", false, "external mode: the Temporal server persists in the bench's PostgreSQL (databases temporal and temporal_visibility, beside hookd's endpoint store) instead of SQLite files")
	fs.BoolVar(&o.ext.Durable, "durable", false, "external mode: run the bench's PostgreSQL durable (fsync, synchronous_commit and full_page_writes on, as production does; default off)")
	fs.StringVar(&o.ext.ProfileDir, "external-cpuprofile", "", "external mode: write a CPU profile of each hookd process (the Temporal server, each serve, worker or API) over the saturation's first "+bench.ProfileWindow.String()+" into this directory (<process>-<count>.prof), fetched from its --pprof-addr")
	fs.StringVar(&o.ext.TemporalCompression, "temporal-compression", "", "external mode: gRPC compression of hookd's calls to the Temporal server, none or gzip (empty: hookd's default, none)")
	fs.IntVar(&o.ext.TemporalShards, "temporal-shards", 0, "external mode: the Temporal server's history shards (0: hookd's default, 1)")
	fs.level(&o.logLevel, "log-level", "HOOKD_LOG_LEVEL", slog.LevelInfo, "log level of progress lines (stderr)")
	err := fs.parse(args)
	if err != nil {
		return o, err
	}
	o.ext.AllVisibilityIndexes = o.cfg.TemporalTuning.AllVisibilityIndexes
	o.ext.StockExecutionStore = o.cfg.TemporalTuning.StockExecutionStore
	o.ext.StockVisibilityColumns = o.cfg.TemporalTuning.StockVisibilityColumns
	if o.ext.Workers, err = bench.ParseWorkerCounts(*workers); err != nil {
		return o, fmt.Errorf("-workers: %w", err)
	}
	o.ext.N, o.ext.Clients, o.ext.Timeout = o.cfg.N, o.cfg.Clients, o.cfg.Timeout
	if *schedule != "" {
		o.cfg.StormSchedule = strings.Split(*schedule, ",")
	}
	if o.cfg.Circuit != (circuit.Policy{}) {
		p := circuit.DefaultPolicy()
		if o.cfg.Circuit.BaseCooldown > 0 {
			p.BaseCooldown = o.cfg.Circuit.BaseCooldown
		}
		if o.cfg.Circuit.MaxCooldown > 0 {
			p.MaxCooldown = o.cfg.Circuit.MaxCooldown
		}
		p.MaxCooldown = max(p.MaxCooldown, p.BaseCooldown)
		o.cfg.Circuit = p
	}
	return o, nil
}

// runBenchCommand is hookd-bench: parse the flags, run, report.
// Help, asked for, goes to stdout.
func runBenchCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 1 && args[0] == bench.ReceiverCommand {
		return bench.ServeReceiver(ctx, stdout)
	}
	out := stderr
	if slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" }) {
		out = stdout
	}
	o, err := parseBenchFlags(args, out)
	if err != nil {
		return err
	}
	return runBench(ctx, o, stdout, stderr)
}

// runBench runs the benchmark and prints its report on stdout.
func runBench(ctx context.Context, o benchOptions, stdout, stderr io.Writer) error {
	o.cfg.Log = newLogger(stderr, o.logLevel)
	o.cfg.HookdLog = newLogger(stderr, slog.LevelWarn).With("part", "hookd")
	if o.external {
		o.ext.Log = o.cfg.Log
		_, err := bench.RunExternal(ctx, o.ext, stdout)
		return err
	}
	for _, p := range []struct {
		path string
		w    *io.Writer
	}{{o.cpuProfile, &o.cfg.CPUProfile}, {o.memProfile, &o.cfg.HeapProfile}, {o.drainProfile, &o.cfg.DrainProfile}, {o.fanoutProfile, &o.cfg.FanoutProfile}, {o.throttleProfile, &o.cfg.ThrottleProfile}, {o.pacedProfile, &o.cfg.PacedProfile}} {
		if p.path == "" {
			continue
		}
		f, err := os.Create(p.path)
		if err != nil {
			return fmt.Errorf("profile: %w", err)
		}
		defer f.Close()
		*p.w = f
	}
	_, err := bench.Run(ctx, o.cfg, stdout)
	return err
}

// dynamicFlag collects repeated key=value dynamic-config overrides. Values
// are typed the way Temporal's dynamic config reads them: bool, integer,
// duration, else string.
type dynamicFlag struct{ m *map[string]any }

func (f dynamicFlag) String() string {
	if f.m == nil || *f.m == nil {
		return ""
	}
	return fmt.Sprint(*f.m)
}

func (f dynamicFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q: want key=value", s)
	}
	if *f.m == nil {
		*f.m = map[string]any{}
	}
	(*f.m)[k] = parseDynamicValue(v)
	return nil
}

func parseDynamicValue(v string) any {
	if i, err := strconv.Atoi(v); err == nil {
		return i // before bool: "1" is a number here
	}
	if b, err := strconv.ParseBool(v); err == nil {
		return b
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d
	}
	return v
}
