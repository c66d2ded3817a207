package bench

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
)

// fanoutType is the event type every fan-out endpoint subscribes to;
// fanoutFilteredType that of the filtered fan-out's endpoints.
const (
	fanoutType         = "bench.fanout"
	fanoutFilteredType = "bench.fanout.filtered"
)

// runFanout posts FanoutN events that each match FanoutWidth endpoints,
// every endpoint with its own receiver, from the saturation phase's
// clients. Its deliveries/s and CPU per delivery sit beside the 1:1
// phase's: what an event's ingest, validation, record and matching cost is
// paid once for FanoutWidth deliveries. With a filter, every endpoint
// carries that content filter, which must accept the bench's payload.
func runFanout(ctx context.Context, cfg Config, h *hookdTarget, eventType, filter string) (LoadResult, error) {
	rcs := make([]*receiver, cfg.FanoutWidth)
	for i := range rcs {
		rc, err := startReceiver()
		if err != nil {
			return LoadResult{}, err
		}
		defer rc.close()
		if err := h.createFanoutEndpoint(ctx, rc.URL, eventType, filter); err != nil {
			return LoadResult{}, fmt.Errorf("fan-out: %w", err)
		}
		rcs[i] = rc
	}
	name, prefix, profile := fmt.Sprintf("hookd fan-out x%d", cfg.FanoutWidth), "fanout", cfg.FanoutProfile
	if filter != "" {
		name, prefix, profile = name+" filtered", "fanout-filtered", nil
	}
	return runLoadTo(ctx, cfg, rcs, loadSpec{
		name: name, ids: eventIDs(prefix, cfg.FanoutN),
		start: h.apiStarter(eventType), clients: cmp.Or(cfg.FanoutClients, cfg.Clients), batch: cfg.Batch, profile: profile,
	})
}

// createFanoutEndpoint subscribes url to eventType, with the content
// filter when there is one.
func (h *hookdTarget) createFanoutEndpoint(ctx context.Context, url, eventType, filter string) error {
	body := map[string]any{"url": url, "event_types": []string{eventType}}
	if filter != "" {
		body["filter"] = filter
	}
	if err := h.call(ctx, http.MethodPost, "/v1/endpoints", body, nil, http.StatusCreated); err != nil {
		return fmt.Errorf("create endpoint: %w", err)
	}
	return nil
}
