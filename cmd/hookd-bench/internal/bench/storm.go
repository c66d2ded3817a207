package bench

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"runtime/pprof"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/visibility"
)

// StormResult is the retry-storm recovery: deliveries parked while the
// receiver answered 503, then drained when it came back.
type StormResult struct {
	N        int
	Schedule []string
	// Ingest is posting the storm's events (receiver down).
	IngestRate float64
	// Park is from the first post until visibility showed every delivery
	// retrying or waiting.
	Park time.Duration
	// Refused counts the 503s the receiver answered: real attempts; the
	// rest were deferred by the open circuit without a request.
	Refused int64
	// ParkedRSSMB is the RSS once all were parked; PeakMB the high-water
	// mark while down; HeapMB the Go heap in use once parked.
	ParkedRSSMB, PeakMB, HeapMB float64
	// FirstAfter is from the receiver's return until the first delivery
	// arrived (the circuit's cooldown and probe); Drain until the last.
	FirstAfter, Drain time.Duration
	// DrainRate is deliveries/s from the first to the last arrival.
	DrainRate float64
	// Recovered, with StormRecover, is what the recover answered: how
	// many it woke, and whether it paced them.
	Recovered *StormRecovered
	// DrainUsage is CPU and peak memory while draining.
	DrainUsage usage
	// WhileParked is a healthy saturation (StormHealthyN deliveries to
	// another endpoint) run once all were parked: what the parked ones
	// cost everyone else.
	WhileParked LoadResult
}

// StormRecovered is the recover's answer that started a drain.
type StormRecovered struct {
	wire.Recovered
	// Took is the recover request's duration.
	Took time.Duration `json:"-"`
}

const stormType = "bench.storm"

// runStorm parks StormN deliveries in retry behind a 503 receiver, runs
// healthy (a saturation of StormHealthyN deliveries elsewhere) while they
// are parked, then brings the receiver back and measures the drain.
func runStorm(ctx context.Context, cfg Config, h *hookdTarget, healthy func(context.Context, string, int) (LoadResult, error)) (StormResult, error) {
	res := StormResult{N: cfg.StormN, Schedule: cfg.StormSchedule}
	rc, epID, err := downEndpoint(ctx, cfg, h, stormType)
	if err != nil {
		return res, err
	}
	defer rc.close()
	ids := eventIDs("storm", cfg.StormN)
	cfg.Log.Info("phase", "name", "storm ingest", "events", len(ids))
	resetPeak()
	began := time.Now()
	s := saturate(ctx, h.apiStarter(stormType), ids, cfg.Clients, cfg.Batch)
	res.IngestRate = float64(len(ids)) / time.Since(began).Seconds()
	for _, at := range s.accepted {
		if at.IsZero() {
			return res, fmt.Errorf("storm: an event was not accepted (%d refusals)", s.errors.Load())
		}
	}

	if err := waitParked(ctx, cfg, h, epID, len(ids)); err != nil {
		return res, err
	}
	res.Park = time.Since(began)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.ParkedRSSMB, res.HeapMB = mb(memKB("VmRSS")), float64(ms.HeapInuse)/(1<<20)
	if cfg.HeapProfile != nil {
		if err := pprof.WriteHeapProfile(cfg.HeapProfile); err != nil {
			return res, fmt.Errorf("heap profile: %w", err)
		}
	}
	cfg.Log.Info("parked", "deliveries", len(ids), "after", res.Park.Round(time.Second), "rss_mb", int(res.ParkedRSSMB), "refused", rc.fail.Load())
	logMemory(cfg, "parked")
	if cfg.StormHealthyN > 0 {
		if res.WhileParked, err = healthy(ctx, "while parked", cfg.StormHealthyN); err != nil {
			return res, err
		}
	}
	if cfg.StormHold > 0 {
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(cfg.StormHold):
		}
	}
	res.PeakMB = mb(memKB("VmHWM"))
	res.Refused = rc.fail.Load()

	if cfg.DrainProfile != nil {
		if err := pprof.StartCPUProfile(cfg.DrainProfile); err != nil {
			return res, fmt.Errorf("drain cpu profile: %w", err)
		}
	}
	m := startMeter()
	back := time.Now()
	rc.down.Store(false)
	cfg.Log.Info("phase", "name", "storm drain", "recover", cfg.StormRecover)
	if cfg.StormRecover {
		res.Recovered = &StormRecovered{}
		if err := h.call(ctx, http.MethodPost, "/v1/endpoints/"+epID+"/recover", map[string]string{"reason": "bench"}, res.Recovered, http.StatusOK); err != nil {
			return res, fmt.Errorf("storm recover: %w", err)
		}
		res.Recovered.Took = time.Since(back)
		cfg.Log.Info("recovered", "woken", res.Recovered.Woken, "paced", res.Recovered.Paced, "took", res.Recovered.Took.Round(time.Millisecond))
	}
	wctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	go logDrain(wctx, cfg, rc, len(ids))
	recv, werr := rc.wait(wctx, ids)
	cancel()
	res.DrainUsage = m.stop()
	if cfg.DrainProfile != nil {
		pprof.StopCPUProfile()
	}
	var first, last time.Time
	for _, at := range recv {
		if at.IsZero() {
			continue
		}
		if first.IsZero() || at.Before(first) {
			first = at
		}
		if at.After(last) {
			last = at
		}
	}
	if !first.IsZero() {
		res.FirstAfter, res.Drain = first.Sub(back), last.Sub(back)
		if span := last.Sub(first); span > 0 {
			res.DrainRate = float64(len(recv)) / span.Seconds()
		}
	}
	logMemory(cfg, "drained")
	cfg.Log.Info("drained", "first_after", res.FirstAfter.Round(time.Millisecond), "drain", res.Drain.Round(time.Millisecond), "rate", fmt.Sprintf("%.1f/s", res.DrainRate))
	if werr != nil {
		return res, fmt.Errorf("storm drain: %w", werr)
	}
	return res, nil
}

// downEndpoint starts a receiver answering 503 and an endpoint for
// eventType that delivers to it on the storm's schedule.
func downEndpoint(ctx context.Context, cfg Config, h *hookdTarget, eventType string) (*receiver, string, error) {
	rc, err := startReceiver()
	if err != nil {
		return nil, "", err
	}
	rc.down.Store(true)
	epID, err := h.createEndpoint(ctx, rc.URL, eventType, cfg.StormSchedule)
	if err != nil {
		rc.close()
		return nil, "", err
	}
	return rc, epID, nil
}

// waitParked polls visibility until n deliveries to the endpoint are
// running and retrying or waiting.
func waitParked(ctx context.Context, cfg Config, h *hookdTarget, endpointID string, n int) error {
	q := visibility.And(
		visibility.Is(delivery.AttrEndpointID, endpointID),
		visibility.Status(visibility.Running),
		visibility.In(delivery.AttrStatus, delivery.SearchStatusRetrying, delivery.SearchStatusWaiting),
	).String()
	deadline := time.Now().Add(cfg.Timeout)
	for {
		resp, err := h.dev.Client.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: q})
		if err != nil {
			return fmt.Errorf("count parked: %w", err)
		}
		if int(resp.GetCount()) >= n {
			return nil
		}
		cfg.Log.Debug("parking", "parked", resp.GetCount(), "of", n)
		if time.Now().After(deadline) {
			return fmt.Errorf("storm: %d of %d parked after %s", resp.GetCount(), n, cfg.Timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// logMemory logs where the process's memory is, at debug level: the Go
// heap (live and held), goroutine stacks, and what the Go runtime does not
// account for (SQLite's allocations, mostly).
func logMemory(cfg Config, at string) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := func(b uint64) int { return int(b >> 20) }
	rss := mb(memKB("VmRSS"))
	cfg.Log.Debug("memory", "at", at, "rss_mb", int(rss),
		"heap_alloc_mb", m(ms.HeapAlloc), "heap_held_mb", m(ms.HeapInuse+ms.HeapIdle-ms.HeapReleased),
		"stacks_mb", m(ms.StackInuse), "go_sys_mb", m(ms.Sys), "goroutines", runtime.NumGoroutine(),
		"gc_cycles", ms.NumGC)
}

// logDrain logs the drain's progress every 30 s until ctx ends, so a drain
// that slows down as it goes shows where.
func logDrain(ctx context.Context, cfg Config, rc *receiver, n int) {
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	prev := n
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		left := rc.left()
		cfg.Log.Info("draining", "delivered", n-left, "of", n, "last_30s", fmt.Sprintf("%.1f/s", float64(prev-left)/30))
		prev = left
	}
}
