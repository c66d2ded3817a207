package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
)

// deleteTenant starts the tenant's expunge job, then deletes the tenant:
// its endpoints, tokens and sessions go at once, and the job expunges
// every event it left in the background (it waits for the deletion, so
// a deletion that fails expunges nothing; a retried one finds the job
// started).
func (s *Server) deleteTenant(w http.ResponseWriter, r *http.Request) {
	ctx, id := r.Context(), chi.URLParam(r, "id")
	t, err := s.store.GetTenant(ctx, id)
	if err != nil {
		s.writeError(w, r, notFound(err, "tenant"))
		return
	}
	in := delivery.TenantExpungeInput{TenantID: id, Incarnation: t.Incarnation, By: scope(r).Actor(), At: s.now().UTC()}
	if err := s.startTenantExpunge(ctx, in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.store.DeleteTenant(ctx, id); err != nil {
		s.writeError(w, r, notFound(err, "tenant"))
		return
	}
	s.log.Info("tenant deleted; expunging its events", "tenant_id", id, "by", in.By, "job", delivery.TenantExpungeID(id))
	w.WriteHeader(http.StatusNoContent)
}

// startTenantExpunge starts the job of one incarnation's deletion; one
// already running for it is that job.
func (s *Server) startTenantExpunge(ctx context.Context, in delivery.TenantExpungeInput) error {
	opts := client.StartWorkflowOptions{
		ID: delivery.TenantExpungeID(in.TenantID), TaskQueue: delivery.TaskQueue,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		StaticSummary:                            "expunge the events of deleted tenant " + in.TenantID,
		TypedSearchAttributes: temporal.NewSearchAttributes(delivery.AttrTenantID.ValueSet(in.TenantID),
			delivery.AttrTenantIncarnation.ValueSet(in.Incarnation)),
	}
	_, err := s.temporal.ExecuteWorkflow(ctx, opts, delivery.WorkflowTenantExpunge, in)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err != nil && !errors.As(err, &started) {
		return fromTemporal(err, "start the tenant's expunge", "")
	}
	return nil
}

// tenantExpunge answers the progress of a deleted tenant's expunge job:
// the events expunged so far (the pages done, by query, while it runs;
// its result once completed).
func (s *Server) tenantExpunge(w http.ResponseWriter, r *http.Request) {
	ctx, id := r.Context(), chi.URLParam(r, "id")
	job := delivery.TenantExpungeID(id)
	desc, err := s.temporal.DescribeWorkflowExecution(ctx, job, "")
	if err != nil {
		s.writeError(w, r, fromTemporal(err, "describe the tenant's expunge", "no expunge of this tenant: it was not deleted"))
		return
	}
	info := desc.GetWorkflowExecutionInfo()
	out := wire.TenantExpunge{TenantID: id, StartedAt: info.GetStartTime().AsTime()}
	var p delivery.ExpungeProgress
	switch info.GetStatus() {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		out.State = wire.TenantExpungeStateRunning
		if v, err := s.temporal.QueryWorkflow(ctx, job, "", delivery.QueryExpungeProgress); err == nil {
			_ = v.Get(&p)
		}
		for _, pa := range desc.GetPendingActivities() {
			var page delivery.ExpungeProgress
			if details := pa.GetHeartbeatDetails(); details != nil && s.dc.FromPayloads(details, &page) == nil {
				p = p.Add(page)
			}
		}
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		out.State = wire.TenantExpungeStateCompleted
		if err := s.temporal.GetWorkflow(ctx, job, "").Get(ctx, &p); err != nil {
			s.writeError(w, r, fromTemporal(err, "read the tenant's expunge", ""))
			return
		}
	default:
		out.State = wire.TenantExpungeStateFailed
	}
	out.Expunged, out.AlreadyExpunged = p.Expunged, p.Already
	if info.GetCloseTime() != nil {
		out.ClosedAt = info.GetCloseTime().AsTime()
	}
	writeJSON(w, http.StatusOK, out)
}
