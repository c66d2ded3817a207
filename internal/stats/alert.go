package stats

import (
	"context"
	"time"

	"github.com/hookd/hookd/internal/opevents"
)

// AlertSuccessRate is the kind of the success-rate alert in the store.
const AlertSuccessRate = opevents.ReasonSuccessRate

// evaluate raises or clears the success-rate alert of each endpoint from
// its figures over the last hour. The store's conditional update decides
// which process announces a change, so several workers flushing the same
// endpoint announce it once: the change records its operational event in
// the store's outbox in the same transaction.
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
		eventType := opevents.EndpointRecovered
		if unhealthy {
			eventType = opevents.EndpointUnhealthy
		}
		ev := opevents.HealthEvent(eventType, opevents.Health{EndpointID: id, Reason: opevents.ReasonSuccessRate, At: now, SuccessRate: &opevents.SuccessRate{
			Rate: w.SuccessRate, Attempts: w.Attempts, Successes: w.Successes, Window: "1h", Threshold: a.cfg.AlertBelow,
		}}, nil)
		changed, err := a.cfg.Store.SetAlert(ctx, id, AlertSuccessRate, unhealthy, now, ev.Record())
		if err != nil {
			a.log.Warn("set success-rate alert", "endpoint_id", id, "error", err)
			continue
		}
		if !changed {
			continue
		}
		if unhealthy {
			a.log.Warn("endpoint success rate low", "endpoint_id", id, "success_rate", w.SuccessRate, "attempts", w.Attempts, "window", "1h")
		} else {
			a.log.Info("endpoint success rate recovered", "endpoint_id", id, "success_rate", w.SuccessRate, "attempts", w.Attempts, "window", "1h")
		}
	}
}
