package api

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/stats"
	"github.com/hookd/hookd/internal/visibility"
)

// Health is an endpoint's health as GET /v1/endpoints/{id}/health shows
// it, with the attempt figures its stats are of (nil when the deployment
// keeps none).
type Health struct {
	wire.EndpointHealth
	Figures *stats.Figures
}

func (s *Server) endpointHealth(w http.ResponseWriter, r *http.Request) {
	out, err := s.EndpointHealth(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out.EndpointHealth)
}

// EndpointHealth returns the endpoint's health, if the scope of ctx may
// see it: its circuit, its pending deliveries and dead letters, and its
// success rates and latencies when a stats source is configured.
func (s *Server) EndpointHealth(ctx context.Context, id string) (Health, error) {
	ep, err := s.endpointIn(ctx, id)
	if err != nil {
		return Health{}, err
	}
	b, err := s.store.Circuit(ctx, ep.ID)
	if err != nil {
		return Health{}, err
	}
	var out Health
	out.EndpointID, out.Enabled, out.Circuit, out.ConsecutiveFailures = ep.ID, ep.Enabled, wire.EndpointHealthCircuit(b.State), b.Failures
	if !b.OpenUntil.IsZero() && b.OpenUntil.After(s.now()) {
		out.CooldownEndsAt = b.OpenUntil
	}
	var oldest time.Time
	if out.PendingDeliveries, oldest, err = s.oldest(ctx, visibility.Pending(ep.ID)); err == nil {
		out.DeadLetters, err = s.count(ctx, visibility.DeadLetters(ep.ID))
	}
	if !oldest.IsZero() {
		out.OldestPendingAgeSeconds = max(s.now().Sub(oldest).Seconds(), 0)
	}
	if err != nil {
		return Health{}, err
	}
	if l := ep.RateLimit; l != nil {
		tat, err := s.store.RateTAT(ctx, ep.ID, l.Since)
		if err != nil {
			return Health{}, err
		}
		out.RateLimit = wire.RateLimitHealth{PerSecond: l.PerSecond, Burst: max(l.Burst, 1)}
		if n, last := l.Backlog(tat, s.now()); n > 0 {
			out.RateLimit.Waiting, out.RateLimit.LastDueAt = n, last
		}
	}
	if s.stats != nil {
		f, err := s.stats(ctx, ep.ID)
		if err != nil {
			return Health{}, err
		}
		out.Figures, out.Stats = &f, wire.EndpointStats{LastHour: windowOut(f.LastHour), LastDay: windowOut(f.LastDay)}
	}
	return out, nil
}

// count counts the executions matching query.
func (s *Server) count(ctx context.Context, query visibility.Query) (int64, error) {
	n, err := visibility.Count(ctx, s.temporal, query)
	return n, fromTemporal(err, "count workflows", "")
}

// oldest counts the executions matching query and finds the start of the
// oldest, at a cost that does not grow with their number (see
// visibility.Oldest): within 1% of its age, erring older.
func (s *Server) oldest(ctx context.Context, query visibility.Query) (int64, time.Time, error) {
	n, t, err := visibility.Oldest(ctx, s.temporal, query, s.now())
	return n, t, fromTemporal(err, "find the oldest workflow", "")
}

// windowOut is an attempt window as a health shows it: latencies in
// milliseconds; rate and latencies null without attempts.
func windowOut(w stats.Window) wire.StatsWindow {
	out := wire.StatsWindow{Attempts: w.Attempts, Successes: w.Successes}
	if w.Attempts > 0 {
		rate, p50, p99 := w.SuccessRate, ms(w.P50), ms(w.P99)
		out.SuccessRate, out.P50Ms, out.P99Ms = &rate, &p50, &p99
	}
	return out
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
