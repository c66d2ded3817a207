package bench

import (
	"context"
	"fmt"
)

// fanoutType is the event type every fan-out endpoint subscribes to.
const fanoutType = "bench.fanout"

// runFanout posts FanoutN events that each match FanoutWidth endpoints,
// every endpoint with its own receiver, from the saturation phase's
// clients. Its deliveries/s and CPU per delivery sit beside the 1:1
// phase's: what an event's ingest, validation, record and matching cost is
// paid once for FanoutWidth deliveries.
func runFanout(ctx context.Context, cfg Config, h *hookdTarget) (LoadResult, error) {
	rcs := make([]*receiver, cfg.FanoutWidth)
	for i := range rcs {
		rc, err := startReceiver()
		if err != nil {
			return LoadResult{}, err
		}
		defer rc.close()
		if _, err := h.createEndpoint(ctx, rc.URL, fanoutType, nil); err != nil {
			return LoadResult{}, fmt.Errorf("fan-out: %w", err)
		}
		rcs[i] = rc
	}
	return runLoadTo(ctx, cfg, rcs, loadSpec{
		name: fmt.Sprintf("hookd fan-out x%d", cfg.FanoutWidth), ids: eventIDs("fanout", cfg.FanoutN),
		start: h.apiStarter(fanoutType), clients: cfg.Clients, batch: cfg.Batch, profile: cfg.FanoutProfile,
	})
}
