package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/hookd/hookd/internal/delivery"
)

func (s *Server) getDelivery(w http.ResponseWriter, r *http.Request) {
	out, err := s.readDelivery(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// readDelivery assembles a delivery's story from Temporal, if the scope in
// ctx may see it (by its tenant search attribute): the current run's
// status and search attributes from Describe, then every run of the
// delivery ID in order, each with the redrive that started it (from its
// input) and its attempts (see readRun).
func (s *Server) readDelivery(ctx context.Context, id string) (DeliveryView, error) {
	out, _, err := s.readDeliveryRun(ctx, id)
	return out, err
}

// readDeliveryRun is readDelivery, also returning the current run's
// description.
func (s *Server) readDeliveryRun(ctx context.Context, id string) (DeliveryView, *workflowpb.WorkflowExecutionInfo, error) {
	desc, err := s.temporal.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return DeliveryView{}, nil, fromTemporal(err, "describe delivery", "delivery not found")
	}
	info := desc.GetWorkflowExecutionInfo()
	if info.GetType().GetName() != delivery.WorkflowDelivery {
		return DeliveryView{}, nil, &Error{Code: CodeNotFound, Message: "delivery not found"}
	}
	attrs := info.GetSearchAttributes().GetIndexedFields()
	tenantID := keyword(attrs, delivery.AttrTenantID.GetName())
	if err := s.res.Owned(ctx, tenantID, keyword(attrs, delivery.AttrTenantIncarnation.GetName())); err != nil {
		return DeliveryView{}, nil, notFound(err, "delivery")
	}
	runs, created, err := s.deliveryRuns(ctx, id, info)
	if err != nil {
		return DeliveryView{}, nil, err
	}
	story := make([]runStory, 0, len(runs))
	for _, ex := range runs {
		st, err := s.readRun(ctx, id, ex, desc)
		if err != nil {
			return DeliveryView{}, nil, err
		}
		story = append(story, st)
	}
	if at := createdOf(info); at.Before(created) {
		created = at // the event's acceptance, as lists show it
	}
	out := tell(story)
	out.ID, out.TenantID, out.CreatedAt = id, tenantID, created
	out.EventID = keyword(attrs, delivery.AttrEventID.GetName())
	out.EventType = keyword(attrs, delivery.AttrEventType.GetName())
	out.EndpointID = keyword(attrs, delivery.AttrEndpointID.GetName())
	return out, info, nil
}

// openState reads a running delivery's timeline: the workflow's own state
// (by query, which needs a worker) overlaid with the pending retry's
// heartbeat details, which carry the attempts Temporal retried on its own.
// A run whose start is delayed to its rate limit's slot (reserved at
// ingest: slot, from its input) has no state to query yet: it waits for
// the rate limit until that slot.
func (s *Server) openState(ctx context.Context, id string, desc *workflowservice.DescribeWorkflowExecutionResponse, slot *delivery.Slot) delivery.Result {
	res := delivery.Result{Status: delivery.StatusPending}
	if at := desc.GetWorkflowExecutionInfo().GetExecutionTime().AsTime(); at.After(s.now()) {
		res.WaitUntil, res.WaitReason = at, delivery.WaitRateLimit
		if slot != nil {
			res.WaitUntil = slot.At
		}
		return res
	}
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if v, err := s.temporal.QueryWorkflow(qctx, id, "", delivery.QueryState); err == nil {
		_ = v.Get(&res)
	}
	for _, pa := range desc.GetPendingActivities() {
		var timeline []delivery.Attempt
		if details := pa.GetHeartbeatDetails(); details != nil {
			if err := s.dc.FromPayloads(details, &timeline); err == nil && len(timeline) > len(res.Attempts) {
				res.Attempts = timeline
			}
		}
	}
	res.Status = delivery.StatusPending
	return res
}

// closedState reads a closed delivery's final state: the result of a
// delivered run, or the details of a failed one.
func (s *Server) closedState(ctx context.Context, id, runID string, status enumspb.WorkflowExecutionStatus) (delivery.Result, error) {
	var res delivery.Result
	err := s.temporal.GetWorkflow(ctx, id, runID).Get(ctx, &res)
	if err == nil {
		return res, nil
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.HasDetails() && appErr.Details(&res) == nil {
		return res, nil
	}
	res.Status = operatorStatus(status)
	return res, nil
}

// operatorStatus is the status of a run an operator ended: terminated,
// timed out or canceled.
func operatorStatus(status enumspb.WorkflowExecutionStatus) delivery.Status {
	return delivery.Status(strings.ToLower(strings.TrimPrefix(status.String(), "WORKFLOW_EXECUTION_STATUS_")))
}

func keyword(attrs map[string]*commonpb.Payload, name string) string {
	return payloadValue[string](converter.GetDefaultDataConverter(), attrs, name)
}
