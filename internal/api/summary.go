package api

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// summaryGroup is the waiting dead letters of one endpoint for one reason.
// Those of endpoints no longer in the store are grouped under "".
type summaryGroup struct {
	EndpointID string `json:"endpoint_id"`
	Reason     string `json:"reason"`
	Count      int64  `json:"count"`
}

// deadLetterSummary counts waiting dead letters per endpoint and reason,
// of one tenant when tenant_id names one (a tenant's token sees only its
// own). It counts instead of listing them, so it costs the same at 100,000
// dead letters as at 10: a bounded search for the oldest, then one count
// per endpoint in scope and one more per endpoint that has any.
func (s *Server) deadLetterSummary(w http.ResponseWriter, r *http.Request) {
	tenant := r.URL.Query().Get("tenant_id")
	f, err := s.tenantFilter(r.Context(), tenant)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	q, err := s.deadLetterQuery(r.Context(), deadLetterFilter{TenantID: tenant})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	total, oldest, err := s.oldest(r.Context(), q)
	groups := []summaryGroup{}
	if err == nil && total > 0 {
		groups, err = s.summaryGroups(r.Context(), f, q, total)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := struct {
		Total            int64          `json:"total"`
		Groups           []summaryGroup `json:"groups"`
		OldestAgeSeconds float64        `json:"oldest_age_seconds"`
	}{Total: total, Groups: groups}
	if !oldest.IsZero() {
		out.OldestAgeSeconds = s.now().Sub(oldest).Seconds()
	}
	writeJSON(w, http.StatusOK, out)
}

// summaryConcurrency bounds the counts a summary has in flight.
const summaryConcurrency = 8

// summaryGroups splits the total dead letters matching q by the endpoints
// f selects and by reason, in the store's order of endpoints.
func (s *Server) summaryGroups(ctx context.Context, f store.TenantFilter, q string, total int64) ([]summaryGroup, error) {
	ids, err := s.endpointIDs(ctx, f)
	if err != nil {
		return nil, err
	}
	failedQ := q + fmt.Sprintf(" AND %s = '%s'", delivery.AttrReason.GetName(), delivery.StatusFailed)
	failedTotal, err := s.count(ctx, failedQ)
	if err != nil {
		return nil, err
	}
	// counts[i] is endpoint i's failed and exhausted dead letters.
	counts := make([][2]int64, len(ids))
	var (
		wg    sync.WaitGroup
		slots = make(chan struct{}, summaryConcurrency)
		mu    sync.Mutex
		first error
	)
	for i, id := range ids {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			byEndpoint := fmt.Sprintf(" AND %s = '%s'", delivery.AttrEndpointID.GetName(), id)
			n, err := s.count(ctx, q+byEndpoint)
			var failed int64
			if err == nil && n > 0 {
				failed, err = s.count(ctx, failedQ+byEndpoint)
			}
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				return
			}
			counts[i] = [2]int64{failed, max(n-failed, 0)}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	groups := []summaryGroup{}
	rest := [2]int64{failedTotal, total - failedTotal}
	for i, c := range counts {
		for j, reason := range []delivery.Status{delivery.StatusFailed, delivery.StatusExhausted} {
			if c[j] > 0 {
				groups = append(groups, summaryGroup{ids[i], string(reason), c[j]})
				rest[j] -= c[j]
			}
		}
	}
	// Dead letters of deleted endpoints (counts taken a moment apart can
	// disagree a little: never below zero).
	for j, reason := range []delivery.Status{delivery.StatusFailed, delivery.StatusExhausted} {
		if rest[j] > 0 {
			groups = append(groups, summaryGroup{"", string(reason), rest[j]})
		}
	}
	return groups, nil
}

// endpointIDs lists the ID of every endpoint f selects.
func (s *Server) endpointIDs(ctx context.Context, f store.TenantFilter) ([]string, error) {
	var (
		ids    []string
		cursor string
	)
	for {
		eps, next, err := s.store.ListEndpoints(ctx, f, store.Page{Cursor: cursor, Limit: 500})
		if err != nil {
			return nil, fmt.Errorf("list endpoints: %w", err)
		}
		for _, ep := range eps {
			ids = append(ids, ep.ID)
		}
		if next == "" {
			return ids, nil
		}
		cursor = next
	}
}
