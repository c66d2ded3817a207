package api

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/internal/visibility"
)

// healthOut is GET /v1/endpoints/{id}/health.
type healthOut struct {
	EndpointID          string     `json:"endpoint_id"`
	Enabled             bool       `json:"enabled"`
	Circuit             string     `json:"circuit"`
	ConsecutiveFailures int        `json:"consecutive_failures"`
	CooldownEndsAt      *time.Time `json:"cooldown_ends_at,omitempty"`
	PendingDeliveries   int64      `json:"pending_deliveries"`
	OldestPendingAgeSec float64    `json:"oldest_pending_age_seconds"`
	DeadLetters         int64      `json:"dead_letters"`
	// Stats holds success rates and latencies when a stats source is
	// configured.
	Stats any `json:"stats,omitempty"`
	// RateLimit is the endpoint's limit and the deliveries waiting on
	// it; nil without one.
	RateLimit *rateHealth `json:"rate_limit,omitempty"`
}

// rateHealth is an endpoint's rate limit in its health: how many slots
// are reserved ahead of now (a delivery waits for each) and when the last
// starts.
type rateHealth struct {
	PerSecond int        `json:"per_second"`
	Burst     int        `json:"burst"`
	Waiting   int        `json:"waiting"`
	LastDueAt *time.Time `json:"last_due_at,omitempty"`
}

func (s *Server) endpointHealth(w http.ResponseWriter, r *http.Request) {
	out, err := s.EndpointHealth(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
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
	out := healthOut{EndpointID: ep.ID, Enabled: ep.Enabled, Circuit: string(b.State), ConsecutiveFailures: b.Failures}
	if !b.OpenUntil.IsZero() && b.OpenUntil.After(s.now()) {
		out.CooldownEndsAt = &b.OpenUntil
	}
	var oldest time.Time
	if out.PendingDeliveries, oldest, err = s.oldest(ctx, visibility.Pending(ep.ID)); err == nil {
		out.DeadLetters, err = s.count(ctx, visibility.DeadLetters(ep.ID))
	}
	if !oldest.IsZero() {
		out.OldestPendingAgeSec = max(s.now().Sub(oldest).Seconds(), 0)
	}
	if err != nil {
		return Health{}, err
	}
	if l := ep.RateLimit; l != nil {
		tat, err := s.store.RateTAT(ctx, ep.ID, l.Since)
		if err != nil {
			return Health{}, err
		}
		out.RateLimit = &rateHealth{PerSecond: l.PerSecond, Burst: max(l.Burst, 1)}
		if n, last := l.Backlog(tat, s.now()); n > 0 {
			out.RateLimit.Waiting, out.RateLimit.LastDueAt = n, &last
		}
	}
	if s.stats != nil {
		if out.Stats, err = s.stats(ctx, ep.ID); err != nil {
			return Health{}, err
		}
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
