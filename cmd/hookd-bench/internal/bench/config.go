package bench

import (
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/embedded"
)

// Config is one benchmark run. Zero fields take the defaults of Defaults.
type Config struct {
	// N is how many deliveries the saturation phase makes (the issue asks
	// for at least 3000).
	N int
	// Clients post concurrently during saturation.
	Clients int
	// Batch is how many events one API request carries; 1 posts to
	// /v1/events, more to /v1/events/batch.
	Batch int
	// Ingest is how saturation starts deliveries: "api" (HTTP, the real
	// path), or "direct"/"direct-lazy" (ingest.Publisher in-process with
	// eager start on/off), to measure the API's and eager start's share.
	Ingest string
	// LightRate events/s for LightDuration is the light load; a zero
	// duration skips it.
	LightRate     float64
	LightDuration time.Duration
	// FanoutN events each go to FanoutWidth endpoints (one receiver each)
	// in the fan-out phase, posted like saturation's; zero skips it.
	FanoutN, FanoutWidth int
	// FanoutClients post the fan-out's events (zero: Clients). Clients
	// divided by FanoutWidth asks for as many deliveries at once as the
	// 1:1 phase.
	FanoutClients int
	// FanoutFilter, when set, runs the fan-out phase a second time, right
	// after the first, to FanoutWidth other endpoints that each carry this
	// content filter (it must accept the bench's payload), so the CPU per
	// delivery of filtered fan-out compares with the unfiltered one of the
	// same run.
	FanoutFilter string
	// ShapesN deliveries in each shape of the workflow-shape experiment
	// (ShapesResult), fan-out FanoutWidth wide; zero (the default) skips
	// it.
	ShapesN int
	// HistorySample is how many completed deliveries' histories are read.
	HistorySample int
	// BaselineN deliveries through the naive baseline by BaselineStarters
	// concurrent starters; zero skips the baseline.
	BaselineN        int
	BaselineStarters int
	// StormN deliveries park in retry while the receiver is down; zero
	// skips the storm. StormSchedule is their endpoint's retry schedule;
	// StormHold keeps the receiver down that long after all have parked.
	StormN        int
	StormSchedule []string
	StormHold     time.Duration
	// HeldN deliveries are held by a disabled endpoint for HeldWindow
	// while the process is measured; zero skips it. DisabledPoll is how
	// often hookd's held deliveries check the switch (zero: hookd's
	// default).
	HeldN        int
	HeldWindow   time.Duration
	DisabledPoll time.Duration
	// ThrottleN events go to an endpoint limited to ThrottleRate/s with
	// burst ThrottleBurst beside ThrottleN to an unlimited one
	// (ThrottleResult); zero (the default) skips it.
	ThrottleN, ThrottleRate, ThrottleBurst int
	// ThrottleRounds is how many times the rate-limit phase runs its
	// whole sequence, so every measure is interleaved with the others and
	// the rounds' medians can be read (at least 1).
	ThrottleRounds int
	// StormRecover starts the drain with an operator's recover of the
	// endpoint (the API) instead of waiting for the circuit's next probe.
	StormRecover bool
	// RecoverImmediate is hookd's bound on the backlog a recover signals
	// at once (zero: hookd's default); a large value measures signals.
	RecoverImmediate int
	// StormHealthyN deliveries to a healthy endpoint are posted at
	// saturation once the storm's are all parked; zero skips it.
	StormHealthyN int
	// Circuit is hookd's circuit-breaker policy (zero: hookd's default).
	Circuit circuit.Policy
	// WorkflowCacheSize is hookd's worker cache (zero: hookd's default).
	WorkflowCacheSize int
	// WorkflowTaskPollers is hookd's worker's workflow-task polls (zero:
	// hookd's default).
	WorkflowTaskPollers int
	// TemporalTuning departs from the embedded server's defaults.
	TemporalTuning embedded.Tuning
	// PlaintextPayloads runs hookd with payload encryption off, to
	// measure what encryption costs.
	PlaintextPayloads bool
	// NoEventKeys runs hookd with per-event keys off, to measure what
	// they cost.
	NoEventKeys bool
	// Tracing runs hookd with tracing on, every span sampled and batched
	// to an exporter that discards them, to measure what tracing costs;
	// off (the default) is hookd's path without a tracer or interceptor.
	Tracing bool
	// Timeout bounds each wait for deliveries to arrive.
	Timeout time.Duration
	// CPUProfile, if set, receives a CPU profile of hookd's saturation phase.
	CPUProfile io.Writer
	// HeapProfile, if set, receives a heap profile taken once the storm's
	// deliveries are all parked.
	HeapProfile io.Writer
	// FanoutProfile, if set, receives a CPU profile of hookd's fan-out
	// phase.
	FanoutProfile io.Writer
	// DrainProfile, if set, receives a CPU profile of the storm's drain.
	DrainProfile io.Writer
	// ThrottleProfile, if set, receives a CPU profile of the rate-limit
	// phase's throttled deliveries (posted at once to the limited
	// endpoint, delivered at its pace).
	ThrottleProfile io.Writer
	// PacedProfile, if set, receives a CPU profile of the rate-limit
	// phase's unthrottled deliveries at the same pace (posted at the
	// limit's rate to the unlimited endpoint): ThrottleProfile's baseline.
	PacedProfile io.Writer
	// Log receives progress; HookdLog receives hookd's own logs (default:
	// discarded, since a storm logs every failed attempt).
	Log, HookdLog *slog.Logger
}

// Defaults is the configuration `make bench` runs.
var Defaults = Config{
	N: 3000, Clients: 64, Batch: 1, Ingest: "api",
	LightRate: 10, LightDuration: 20 * time.Second,
	HistorySample: 20,
	FanoutN:       300, FanoutWidth: 10,
	BaselineN: 1500, BaselineStarters: 64,
	StormN: 10000, StormHealthyN: 1000,
	StormSchedule: []string{"5s", "30s", "1m", "2m", "5m", "10m", "30m", "1h"},
	Timeout:       15 * time.Minute,
}

// withDefaults fills zero fields from Defaults. Skips (zero N of a phase)
// are expressed with negative values by callers, which become zero here.
func (c Config) withDefaults() (Config, error) {
	d := Defaults
	fill := func(v *int, def int) {
		switch {
		case *v == 0:
			*v = def
		case *v < 0:
			*v = 0
		}
	}
	fill(&c.N, d.N)
	fill(&c.Clients, d.Clients)
	fill(&c.Batch, d.Batch)
	fill(&c.HistorySample, d.HistorySample)
	fill(&c.FanoutN, d.FanoutN)
	fill(&c.FanoutWidth, d.FanoutWidth)
	c.ShapesN = max(c.ShapesN, 0)
	fill(&c.BaselineN, d.BaselineN)
	fill(&c.BaselineStarters, d.BaselineStarters)
	fill(&c.StormN, d.StormN)
	fill(&c.StormHealthyN, d.StormHealthyN)
	c.HeldN = max(c.HeldN, 0)
	c.ThrottleN = max(c.ThrottleN, 0)
	if c.ThrottleRate <= 0 {
		c.ThrottleRate = 50
	}
	c.ThrottleBurst = min(max(c.ThrottleBurst, 1), c.ThrottleRate)
	c.ThrottleRounds = max(c.ThrottleRounds, 1)
	if c.HeldWindow <= 0 {
		c.HeldWindow = 90 * time.Second
	}
	if c.Ingest == "" {
		c.Ingest = d.Ingest
	}
	if c.LightRate == 0 {
		c.LightRate = d.LightRate
	}
	if c.LightDuration == 0 {
		c.LightDuration = d.LightDuration
	}
	if c.LightDuration < 0 {
		c.LightDuration = 0
	}
	if len(c.StormSchedule) == 0 {
		c.StormSchedule = d.StormSchedule
	}
	if c.Timeout <= 0 {
		c.Timeout = d.Timeout
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.HookdLog == nil {
		c.HookdLog = slog.New(slog.DiscardHandler)
	}
	switch {
	case c.N <= 0:
		return c, errors.New("bench: N must be positive")
	case c.Clients <= 0 || c.Batch <= 0 || c.Batch > 100:
		return c, errors.New("bench: clients must be positive and batch in 1..100")
	case c.Ingest != "api" && c.Ingest != "direct" && c.Ingest != "direct-lazy":
		return c, errors.New(`bench: ingest must be "api", "direct" or "direct-lazy"`)
	}
	return c, nil
}
