package api

import (
	"cmp"
	"context"
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/trace"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/visibility"
)

// recoverEndpoint is an operator's "the receiver is fixed": it enables the
// endpoint if it was disabled, closes its circuit and resets its failure
// count, and tells every delivery waiting on the circuit or the switch to
// try again now instead of at the end of its wait.
func (s *Server) recoverEndpoint(w http.ResponseWriter, r *http.Request) {
	var body wire.RecoverRequest
	if err := s.decode(w, r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	out, err := s.RecoverEndpoint(r.Context(), chi.URLParam(r, "id"), wire.Deref(body.Reason))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// RecoverEndpoint recovers the endpoint, if the scope of ctx may see it,
// as POST /v1/endpoints/{id}/recover does (see recoverEndpoint), for
// reason, by the scope's actor.
func (s *Server) RecoverEndpoint(ctx context.Context, id, reason string) (RecoverResult, error) {
	if err := permit(ctx, authz.Recover); err != nil {
		return RecoverResult{}, err
	}
	if len(reason) > 1024 {
		return RecoverResult{}, invalid("reason", "must be at most 1024 characters")
	}
	ep, err := s.endpointIn(ctx, id)
	if err != nil {
		return RecoverResult{}, err
	}
	out := RecoverResult{EndpointID: ep.ID, By: authz.FromContext(ctx).Actor(), Reason: reason, At: s.now().UTC()}
	if !ep.Enabled {
		ep.Enabled, ep.DisabledReason, ep.UpdatedAt, out.Reenabled = true, "", out.At, true
		if err := s.store.UpdateEndpoint(ctx, ep, endpointEvent(ctx, opevents.EndpointEnabled, ep, reason, nil)); err != nil {
			return RecoverResult{}, notFoundAs(err, "endpoint not found")
		}
	}
	_, err = s.store.UpdateCircuit(ctx, ep.ID, func(b circuit.Breaker) circuit.Breaker {
		out.PreviousCircuit, out.PreviousConsecutiveFailures = wire.RecoveredPreviousCircuit(cmp.Or(b.State, circuit.Closed)), b.Failures
		return circuit.Breaker{State: circuit.Closed}
	})
	if err != nil {
		return RecoverResult{}, notFoundAs(err, "endpoint not found")
	}
	s.linkWaiting(ctx, ep.ID)
	if err := s.wakeWaiting(ctx, ep.ID, &out); err != nil {
		return RecoverResult{}, err
	}
	s.log.Info("endpoint recovered", "endpoint_id", ep.ID, "by", out.By, "reason", out.Reason,
		"previous_circuit", out.PreviousCircuit, "previous_failures", out.PreviousConsecutiveFailures,
		"reenabled", out.Reenabled, "woken", out.Woken)
	return out, nil
}

func notFoundAs(err error, msg string) error {
	if errors.Is(err, store.ErrNotFound) {
		return &Error{Code: CodeNotFound, Message: msg}
	}
	return err
}

// maxRecoverLinks bounds the delivery traces a recover's span links to.
const maxRecoverLinks = 10

// linkWaiting links the span of ctx, when tracing is on, to the traces of
// the first deliveries the recover wakes (at most maxRecoverLinks): the
// recover's own trace then leads to the deliveries it let go.
func (s *Server) linkWaiting(ctx context.Context, endpointID string) {
	if s.tracer == nil {
		return
	}
	span := trace.SpanFromContext(ctx)
	resp, err := s.temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: visibility.Waiting(endpointID).String(), PageSize: maxRecoverLinks})
	if err != nil {
		return
	}
	for _, ex := range resp.GetExecutions() {
		for _, l := range s.startLinks(ctx, ex.GetExecution().GetWorkflowId()) {
			span.AddLink(l)
		}
	}
}

// wakeWaiting tells the endpoint's waiting deliveries to try again
// (wakeBacklog) and records how in out.
func (s *Server) wakeWaiting(ctx context.Context, endpointID string, out *RecoverResult) error {
	w, err := s.wakeBacklog(ctx, endpointID, delivery.RecoverSignal{By: out.By, Reason: out.Reason}, out.At)
	out.Woken, out.Paced = w.Woken, w.Paced
	if !w.Paced {
		out.Spread = w.Spread.String()
	}
	return err
}

// eachExecution calls fn for every execution matching query, a page of
// 1,000 at a time.
func (s *Server) eachExecution(ctx context.Context, query visibility.Query, fn func(*workflowpb.WorkflowExecutionInfo)) error {
	var token []byte
	for {
		resp, err := s.temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query.String(), PageSize: 1000, NextPageToken: token})
		if err != nil {
			return fromTemporal(err, "list workflows", "")
		}
		for _, ex := range resp.GetExecutions() {
			fn(ex)
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return nil
		}
	}
}
