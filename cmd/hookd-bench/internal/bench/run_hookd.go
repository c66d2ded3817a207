package bench

import (
	"context"
	"fmt"

	"github.com/hookd/hookd/internal/embedded"
)

// HookdResult is what the run measured of hookd.
type HookdResult struct {
	Light, Saturation LoadResult
	// Fanout is the fan-out phase (zero N when skipped).
	Fanout LoadResult
	// FanoutFiltered is the fan-out phase again with Config.FanoutFilter
	// on every endpoint (zero N when not run).
	FanoutFiltered LoadResult
	History        HistoryResult
	// SaturationCommits and FanoutCommits count the visibility file's
	// writes and commits over each phase and its visibility's lag.
	SaturationCommits, FanoutCommits embedded.SharedCommits
	Storm                            *StormResult
	Held                             *HeldResult
	Throttle                         *ThrottleResult
}

const eventType = "bench.order.paid"

// runHookd measures the embedded default: light load, saturation, history
// length of healthy deliveries, fan-out, then the retry storm.
func runHookd(ctx context.Context, cfg Config) (HookdResult, error) {
	var res HookdResult
	h, err := startHookd(ctx, cfg)
	if err != nil {
		return res, err
	}
	defer h.stop()
	rc, err := startReceiver()
	if err != nil {
		return res, err
	}
	defer rc.close()
	epID, err := h.createEndpoint(ctx, rc.URL, eventType, nil)
	if err != nil {
		return res, err
	}
	start := h.apiStarter(eventType)

	// Warm up: connections, caches, the first workflow tasks.
	if _, err := runLoad(ctx, cfg, rc, loadSpec{name: "hookd warm-up", ids: eventIDs("warm", min(100, cfg.N)), start: start, clients: 16, batch: 1}); err != nil {
		return res, err
	}
	if cfg.LightDuration > 0 {
		n := int(cfg.LightRate * cfg.LightDuration.Seconds())
		settle(ctx)
		if res.Light, err = runLoad(ctx, cfg, rc, loadSpec{name: "hookd light", ids: eventIDs("light", n), start: start, rate: cfg.LightRate}); err != nil {
			return res, err
		}
	}
	sat := loadSpec{name: "hookd saturation", ids: eventIDs("sat", cfg.N), start: start, clients: cfg.Clients, batch: cfg.Batch, profile: cfg.CPUProfile}
	switch cfg.Ingest {
	case "direct":
		sat.start, err = h.directStarter(eventType, epID, true)
	case "direct-lazy":
		sat.start, err = h.directStarter(eventType, epID, false)
	}
	if err != nil {
		return res, err
	}
	settle(ctx)
	commits := embedded.SharedCommitCounts()
	if res.Saturation, err = runLoad(ctx, cfg, rc, sat); err != nil {
		return res, err
	}
	if res.History, err = sampleHistory(ctx, h.dev.Client, deliveryIDs(sat.ids, epID), cfg.HistorySample); err != nil {
		return res, fmt.Errorf("history: %w", err)
	}
	if cfg.FanoutN > 0 && cfg.FanoutWidth > 0 {
		settle(ctx)
		res.SaturationCommits = embedded.SharedCommitCounts().Since(commits)
		commits = embedded.SharedCommitCounts()
		if res.Fanout, err = runFanout(ctx, cfg, h, fanoutType, ""); err != nil {
			return res, err
		}
		settle(ctx)
		res.FanoutCommits = embedded.SharedCommitCounts().Since(commits)
		if cfg.FanoutFilter != "" {
			settle(ctx)
			if res.FanoutFiltered, err = runFanout(ctx, cfg, h, fanoutFilteredType, cfg.FanoutFilter); err != nil {
				return res, err
			}
		}
	}
	if cfg.StormN > 0 {
		settle(ctx)
		healthy := func(ctx context.Context, name string, n int) (LoadResult, error) {
			return runLoad(ctx, cfg, rc, loadSpec{name: "hookd " + name, ids: eventIDs(name, n), start: start, clients: cfg.Clients, batch: cfg.Batch})
		}
		storm, err := runStorm(ctx, cfg, h, healthy)
		res.Storm = &storm
		if err != nil {
			return res, err
		}
	}
	if cfg.ThrottleN > 0 {
		t, err := runThrottle(ctx, cfg, h)
		res.Throttle = &t
		if err != nil {
			return res, err
		}
	}
	if cfg.HeldN > 0 {
		settle(ctx)
		held, err := runHeld(ctx, cfg, h)
		res.Held = &held
		if err != nil {
			return res, err
		}
	}
	return res, nil
}
