package stats

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hookd/hookd/activities"
	"github.com/hookd/hookd/ingest"
)

// AlertSuccessRate is the kind of the success-rate alert in the store and
// the reason in its events.
const AlertSuccessRate = "success_rate"

// maxPending bounds the alert events kept for a retry when publishing
// fails.
const maxPending = 100

// evaluate raises or clears the success-rate alert of each endpoint from
// its figures over the last hour. The store's conditional update decides
// which process announces a change, so several workers flushing the same
// endpoint announce it once.
func (a *Aggregator) evaluate(ctx context.Context, endpoints []string, now time.Time) {
	for _, id := range endpoints {
		t, err := a.cfg.Store.StatsSince(ctx, id, now.Add(-time.Hour))
		if err != nil {
			a.log.Warn("evaluate success rate", "endpoint_id", id, "error", err)
			continue
		}
		if t.Attempts < a.cfg.AlertMinAttempts {
			continue
		}
		w := windowOf(t)
		unhealthy := w.SuccessRate < a.cfg.AlertBelow
		changed, err := a.cfg.Store.SetAlert(ctx, id, AlertSuccessRate, unhealthy, now)
		if err != nil {
			a.log.Warn("set success-rate alert", "endpoint_id", id, "error", err)
			continue
		}
		if !changed {
			continue
		}
		eventType := activities.EventEndpointRecovered
		if unhealthy {
			eventType = activities.EventEndpointUnhealthy
			a.log.Warn("endpoint success rate low", "endpoint_id", id, "success_rate", w.SuccessRate, "attempts", w.Attempts, "window", "1h")
		} else {
			a.log.Info("endpoint success rate recovered", "endpoint_id", id, "success_rate", w.SuccessRate, "attempts", w.Attempts, "window", "1h")
		}
		a.queue(alertEvent(eventType, id, w, a.cfg.AlertBelow, now))
	}
}

// alertEvent is the operational event of an alert change. Its ID is
// derived from the change, so publishing it again deduplicates.
func alertEvent(eventType, endpointID string, w Window, threshold float64, at time.Time) ingest.Event {
	body, _ := json.Marshal(map[string]any{
		"endpoint_id":  endpointID,
		"reason":       AlertSuccessRate,
		"success_rate": w.SuccessRate,
		"attempts":     w.Attempts,
		"successes":    w.Successes,
		"window":       "1h",
		"threshold":    threshold,
	})
	return ingest.Event{
		ID:   fmt.Sprintf("%s:%s:%s:%d", eventType, AlertSuccessRate, endpointID, at.Unix()),
		Type: eventType,
		Body: string(body),
	}
}

func (a *Aggregator) queue(ev ingest.Event) {
	if a.cfg.Publisher == nil {
		return
	}
	if len(a.pending) >= maxPending {
		a.log.Warn("dropping endpoint alert event", "event_type", a.pending[0].Type)
		a.pending = a.pending[1:]
	}
	a.pending = append(a.pending, ev)
}

// publishPending publishes the queued alert events, keeping those that
// fail for the next flush.
func (a *Aggregator) publishPending(ctx context.Context) {
	kept := a.pending[:0]
	for _, ev := range a.pending {
		if _, err := a.cfg.Publisher.Publish(ctx, ev); err != nil {
			a.log.Warn("publish endpoint alert", "event_type", ev.Type, "error", err)
			kept = append(kept, ev)
		}
	}
	a.pending = kept
}
