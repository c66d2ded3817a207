package bench

import (
	"context"
	"fmt"
	"io"
	"runtime/pprof"
	"time"
)

// loadSpec is one load phase: the events, how they are started, and how
// hard.
type loadSpec struct {
	name    string
	ids     []string // event IDs, as the receiver sees them
	start   starter
	rate    float64 // events/s; zero saturates
	clients int
	batch   int
	profile io.Writer
}

// runLoad starts the events, waits until the receiver has them all, and
// measures the phase.
func runLoad(ctx context.Context, cfg Config, rc *receiver, spec loadSpec) (LoadResult, error) {
	return runLoadTo(ctx, cfg, []*receiver{rc}, spec)
}

// runLoadTo is runLoad for events that each go to every one of rcs (one
// endpoint per receiver): every event is len(rcs) deliveries.
func runLoadTo(ctx context.Context, cfg Config, rcs []*receiver, spec loadSpec) (LoadResult, error) {
	cfg.Log.Info("phase", "name", spec.name, "events", len(spec.ids), "receivers", len(rcs), "rate", spec.rate, "clients", spec.clients, "batch", spec.batch)
	if spec.profile != nil {
		if err := pprof.StartCPUProfile(spec.profile); err != nil {
			return LoadResult{}, fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	m := startMeter()
	var s *sends
	if spec.rate > 0 {
		s = paced(ctx, spec.start, spec.ids, spec.rate)
	} else {
		s = saturate(ctx, spec.start, spec.ids, spec.clients, spec.batch)
	}
	wctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	recv := make([][]time.Time, len(rcs))
	var err error
	for i, rc := range rcs {
		var werr error
		if recv[i], werr = rc.wait(wctx, spec.ids); werr != nil && err == nil {
			err = werr
		}
	}
	res := summarize(s, recv, m.stop())
	cfg.Log.Info("phase done", "name", spec.name, "rate", fmt.Sprintf("%.1f/s", res.Rate),
		"ingest", res.Ingest.pair(), "end_to_end", res.EndToEnd.pair(), "usage", res.Usage.String(), "errors", res.Errors)
	if err != nil {
		return res, fmt.Errorf("%s: %w", spec.name, err)
	}
	return res, nil
}

// settle lets the previous phase's stragglers (workflow completions,
// visibility writes) finish before the next phase is measured.
func settle(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
	}
}
