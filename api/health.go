package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/delivery"
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
}

func (s *Server) endpointHealth(w http.ResponseWriter, r *http.Request) {
	ep, err := s.endpoint(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	b, err := s.store.Circuit(r.Context(), ep.ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := healthOut{EndpointID: ep.ID, Enabled: ep.Enabled, Circuit: string(b.State), ConsecutiveFailures: b.Failures}
	if !b.OpenUntil.IsZero() && b.OpenUntil.After(s.now()) {
		out.CooldownEndsAt = &b.OpenUntil
	}
	pending := fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running' AND %s = '%s'", delivery.WorkflowDelivery, delivery.AttrEndpointID.GetName(), ep.ID)
	dead := fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running' AND %s = '%s'", delivery.WorkflowDeadLetter, delivery.AttrEndpointID.GetName(), ep.ID)
	if out.PendingDeliveries, err = s.count(r.Context(), pending); err == nil {
		out.DeadLetters, err = s.count(r.Context(), dead)
	}
	if err == nil && out.PendingDeliveries > 0 {
		var oldest time.Time
		err = s.eachExecution(r.Context(), pending, func(ex *workflowpb.WorkflowExecutionInfo) {
			if t := ex.GetStartTime().AsTime(); oldest.IsZero() || t.Before(oldest) {
				oldest = t
			}
		})
		out.OldestPendingAgeSec = s.now().Sub(oldest).Seconds()
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if s.stats != nil {
		if out.Stats, err = s.stats(r.Context(), ep.ID); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) count(ctx context.Context, query string) (int64, error) {
	resp, err := s.temporal.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: query})
	if err != nil {
		return 0, fmt.Errorf("%w: count workflows: %w", errUnavailable, err)
	}
	return resp.GetCount(), nil
}
