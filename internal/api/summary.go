package api

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"golang.org/x/sync/errgroup"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/visibility"
)

// deadLetterSummary counts waiting dead letters per endpoint and reason,
// of one tenant when tenant_id names one (a tenant's token sees only its
// own). Its cost grows with neither the dead letters nor the endpoints in
// scope: two counts, a bounded search for the oldest, and a bounded
// grouping (summaryGroups).
func (s *Server) deadLetterSummary(w http.ResponseWriter, r *http.Request) {
	tenant := r.URL.Query().Get("tenant_id")
	q, err := s.deadLetterQuery(r.Context(), deadLetterFilter{TenantID: tenant})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	total, oldest, err := s.oldest(r.Context(), q)
	groups, truncated := []wire.SummaryGroup{}, false
	if err == nil && total > 0 {
		groups, truncated, err = s.summaryGroups(r.Context(), q, total)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// Truncated: the groups leave out dead letters of endpoints past the
	// summary's bounds (the total counts them).
	out := wire.DeadLetterSummary{Total: total, Groups: groups, Truncated: truncated}
	if !oldest.IsZero() {
		out.OldestAgeSeconds = s.now().Sub(oldest).Seconds()
	}
	writeJSON(w, http.StatusOK, out)
}

// Bounds of a summary's grouping: the dead letters one list reads, the
// endpoints counted one by one, and the lists made.
const (
	summaryPage         = 1000
	summaryMaxEndpoints = 25
	summaryMaxLists     = 4
	summaryConcurrency  = 8
)

// summaryGroups splits the total dead letters matching q by endpoint and
// reason, at a cost that depends on neither the endpoints in scope nor the
// dead letters. It lists one page of them (up to summaryPage): when that
// is all, it groups the page and is exact. Otherwise it counts each
// endpoint the page shows (two counts), then lists the dead letters of the
// endpoints not yet counted (NOT IN), and so on until every dead letter is
// accounted for, or summaryMaxEndpoints endpoints are counted or
// summaryMaxLists lists made, when the rest is left out and truncated set.
// Endpoints no longer in the store are grouped under "". Groups follow the
// store's order of endpoints (creation, then ID).
func (s *Server) summaryGroups(ctx context.Context, q visibility.Query, total int64) ([]wire.SummaryGroup, bool, error) {
	failedQ := visibility.And(q, visibility.Is(delivery.AttrReason, string(delivery.StatusFailed)))
	counts := map[string]*[2]int64{} // endpoint -> failed, exhausted
	var (
		order     []string
		accounted int64
		truncated = true
	)
	for lists := 0; lists < summaryMaxLists && len(order) < summaryMaxEndpoints; lists++ {
		listQ := q
		if len(order) > 0 {
			listQ = visibility.And(listQ, visibility.NotIn(delivery.AttrEndpointID, order...))
		}
		resp, err := s.temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: listQ.String(), PageSize: summaryPage})
		if err != nil {
			return nil, false, fromTemporal(err, "list dead letters", "")
		}
		page := resp.GetExecutions()
		if lists == 0 && len(resp.GetNextPageToken()) == 0 {
			// The page is every dead letter: group it as it is.
			for _, ex := range page {
				ref := s.refOf(ex)
				c := counts[ref.EndpointID]
				if c == nil {
					c = &[2]int64{}
					counts[ref.EndpointID] = c
					order = append(order, ref.EndpointID)
				}
				c[reasonIndex(string(ref.Reason))]++
			}
			truncated = false
			break
		}
		var fresh []string
		for _, ex := range page {
			id := s.refOf(ex).EndpointID
			if _, ok := counts[id]; !ok && len(order)+len(fresh) < summaryMaxEndpoints && safeValue.MatchString(id) {
				counts[id] = &[2]int64{}
				fresh = append(fresh, id)
			}
		}
		if len(fresh) == 0 {
			break
		}
		if err := s.countEndpoints(ctx, q, failedQ, fresh, counts); err != nil {
			return nil, false, err
		}
		order = append(order, fresh...)
		for _, id := range fresh {
			accounted += counts[id][0] + counts[id][1]
		}
		if accounted >= total {
			truncated = false
			break
		}
	}
	return s.orderGroups(ctx, order, counts), truncated, nil
}

// reasonIndex is a reason's place in a group's counts: 0 failed, 1
// exhausted.
func reasonIndex(reason string) int {
	if reason == string(delivery.StatusFailed) {
		return 0
	}
	return 1
}

// countEndpoints counts each endpoint's dead letters of q and of failedQ
// into counts, summaryConcurrency at a time.
func (s *Server) countEndpoints(ctx context.Context, q, failedQ visibility.Query, ids []string, counts map[string]*[2]int64) error {
	var (
		g    errgroup.Group
		errs = make([]error, len(ids))
		got  = make([][2]int64, len(ids))
	)
	g.SetLimit(summaryConcurrency)
	for i, id := range ids {
		g.Go(func() error {
			byEndpoint := visibility.Is(delivery.AttrEndpointID, id)
			n, err := s.count(ctx, visibility.And(q, byEndpoint))
			var failed int64
			if err == nil && n > 0 {
				failed, err = s.count(ctx, visibility.And(failedQ, byEndpoint))
			}
			got[i], errs[i] = [2]int64{failed, max(n-failed, 0)}, err
			return nil
		})
	}
	_ = g.Wait() // every count's error is in errs
	for i, id := range ids {
		*counts[id] = got[i]
	}
	return errors.Join(errs...)
}

// orderGroups turns the counts into groups in the store's order of the
// endpoints; those not in the store (deleted) merge under "", last.
func (s *Server) orderGroups(ctx context.Context, order []string, counts map[string]*[2]int64) []wire.SummaryGroup {
	type known struct {
		id      string
		created time.Time
	}
	var (
		live []known
		gone [2]int64
	)
	for _, id := range order {
		ep, err := s.store.GetEndpoint(ctx, id)
		if id == "" || err != nil {
			gone[0] += counts[id][0]
			gone[1] += counts[id][1]
			continue
		}
		live = append(live, known{id, ep.CreatedAt})
	}
	slices.SortFunc(live, func(a, b known) int {
		return cmp.Or(a.created.Compare(b.created), cmp.Compare(a.id, b.id))
	})
	groups := []wire.SummaryGroup{}
	add := func(id string, c [2]int64) {
		for j, reason := range []delivery.Status{delivery.StatusFailed, delivery.StatusExhausted} {
			if c[j] > 0 {
				groups = append(groups, wire.SummaryGroup{EndpointID: id, Reason: wire.DeadLetterReason(reason), Count: c[j]})
			}
		}
	}
	for _, k := range live {
		add(k.id, *counts[k.id])
	}
	add("", gone)
	return groups
}
