package bench

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hookd/hookd/apiclient/wire"
)

// HeldResult is what deliveries held by a disabled endpoint cost while it
// stays off: each checks the switch once per hookd's disabled poll.
type HeldResult struct {
	N int
	// Poll is the disabled poll hookd ran with (zero: hookd's default).
	Poll time.Duration
	// Usage is the process's CPU and memory over the measuring window.
	Usage usage
}

const heldType = "bench.held"

// heldSettle is how long the held phase lets the woken deliveries find the
// switch off before it measures: 40 s, less for a short window (a test).
func heldSettle(window time.Duration) time.Duration {
	return max(2*time.Second, min(40*time.Second, window))
}

// runHeld parks HeldN deliveries behind a receiver answering 503 (the
// circuit opens and most sleep), disables the endpoint, and wakes the
// waiting ones with recover signals, as an operator with the temporal CLI
// could: each finds the switch off and is held. Then it measures the
// process while they stay held for HeldWindow.
func runHeld(ctx context.Context, cfg Config, h *hookdTarget) (HeldResult, error) {
	res := HeldResult{N: cfg.HeldN, Poll: cfg.DisabledPoll}
	rc, epID, err := downEndpoint(ctx, cfg, h, heldType)
	if err != nil {
		return res, err
	}
	defer rc.close()
	ids := eventIDs("held", cfg.HeldN)
	cfg.Log.Info("phase", "name", "held ingest", "events", len(ids))
	saturate(ctx, h.apiStarter(heldType), ids, cfg.Clients, cfg.Batch)
	if err := waitParked(ctx, cfg, h, epID, len(ids)); err != nil {
		return res, err
	}
	if err := h.call(ctx, http.MethodPatch, "/v1/endpoints/"+epID, map[string]bool{"enabled": false}, nil, http.StatusOK); err != nil {
		return res, fmt.Errorf("held: disable: %w", err)
	}
	var rec wire.Recovered
	if err := h.call(ctx, http.MethodPost, "/v1/endpoints/"+epID+"/recover", map[string]string{"reason": "held"}, &rec, http.StatusOK); err != nil {
		return res, fmt.Errorf("held: wake: %w", err)
	}
	cfg.Log.Info("held", "woken", rec.Woken, "settle", heldSettle(cfg.HeldWindow))
	select {
	case <-ctx.Done():
		return res, ctx.Err()
	case <-time.After(heldSettle(cfg.HeldWindow)):
	}
	m := startMeter()
	select {
	case <-ctx.Done():
		return res, ctx.Err()
	case <-time.After(cfg.HeldWindow):
	}
	res.Usage = m.stop()
	cfg.Log.Info("phase done", "name", "held", "usage", res.Usage.String())
	return res, nil
}
