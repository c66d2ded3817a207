package api

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"time"

	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/circuit"
	"github.com/hookd/hookd/delivery"
	"github.com/hookd/hookd/store"
	"github.com/hookd/hookd/wake"
)

// recoverOut is the answer of POST /v1/endpoints/{id}/recover: what the
// recover changed and who asked for it.
type recoverOut struct {
	EndpointID string    `json:"endpoint_id"`
	By         string    `json:"by"`
	Reason     string    `json:"reason"`
	At         time.Time `json:"at"`
	// Circuit and ConsecutiveFailures are the breaker's state before the
	// recover; after it the circuit is closed with no failures counted.
	Circuit             string `json:"previous_circuit"`
	ConsecutiveFailures int    `json:"previous_consecutive_failures"`
	// Reenabled says the endpoint was disabled and is enabled again.
	Reenabled bool `json:"reenabled"`
	// Woken counts the waiting deliveries told to try again, all within
	// Spread of At; or, Paced, the backlog (over wake.Immediate) being
	// woken in the background as fast as it drains.
	Woken  int    `json:"woken"`
	Spread string `json:"spread,omitempty"`
	Paced  bool   `json:"paced"`
}

// recoverEndpoint is an operator's "the receiver is fixed": it enables the
// endpoint if it was disabled, closes its circuit and resets its failure
// count, and tells every delivery waiting on the circuit or the switch to
// try again now instead of at the end of its wait.
func (s *Server) recoverEndpoint(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Reason string `json:"reason"`
	}
	if err := s.decode(w, r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(body.Reason) > 1024 {
		s.writeError(w, r, invalid("reason", "must be at most 1024 characters"))
		return
	}
	ep, err := s.endpoint(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := recoverOut{EndpointID: ep.ID, By: scope(r).Actor(), Reason: body.Reason, At: s.now().UTC()}
	if !ep.Enabled {
		ep.Enabled, ep.UpdatedAt, out.Reenabled = true, out.At, true
		if err := s.store.UpdateEndpoint(r.Context(), ep); err != nil {
			s.writeError(w, r, notFoundAs(err, "endpoint not found"))
			return
		}
	}
	_, err = s.store.UpdateCircuit(r.Context(), ep.ID, func(b circuit.Breaker) circuit.Breaker {
		out.Circuit, out.ConsecutiveFailures = string(cmp.Or(b.State, circuit.Closed)), b.Failures
		return circuit.Breaker{State: circuit.Closed}
	})
	if err != nil {
		s.writeError(w, r, notFoundAs(err, "endpoint not found"))
		return
	}
	if err := s.wakeWaiting(r, ep.ID, &out); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.log.Info("endpoint recovered", "endpoint_id", ep.ID, "by", out.By, "reason", out.Reason,
		"previous_circuit", out.Circuit, "previous_failures", out.ConsecutiveFailures,
		"reenabled", out.Reenabled, "woken", out.Woken)
	writeJSON(w, http.StatusOK, out)
}

func notFoundAs(err error, msg string) error {
	if errors.Is(err, store.ErrNotFound) {
		return &Error{Code: CodeNotFound, Message: msg}
	}
	return err
}

// wakeWaiting tells the endpoint's waiting deliveries to try again and
// records how in out. Up to wake.Immediate are signalled now, each at its
// slot of a short spread; a larger backlog is woken in the background
// with recover updates, as fast as it drains (wake.Backlog.Pace), so that
// 100,000 woken at once do not crowd out their own attempts. The
// background wake-up outlives the request, not the process: a delivery
// it does not reach tries again at the end of its wait, its circuit now
// closed.
func (s *Server) wakeWaiting(r *http.Request, endpointID string, out *recoverOut) error {
	waiting, err := wake.List(r.Context(), s.temporal, endpointID)
	if err != nil {
		return fromTemporal(err, "list waiting deliveries", "")
	}
	sig := delivery.RecoverSignal{By: out.By, Reason: out.Reason}
	if len(waiting) <= s.recoverImmediate {
		out.Woken, err = waiting.Signal(r.Context(), s.temporal, sig, out.At)
		out.Spread = wake.Spread(out.Woken).String()
		if err != nil {
			return fromTemporal(err, "wake waiting deliveries", "")
		}
		return nil
	}
	out.Woken, out.Paced = len(waiting), true
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), recoverPaceBound)
		defer cancel()
		n, err := waiting.Pace(ctx, s.temporal, sig)
		if err != nil {
			s.log.Warn("wake waiting deliveries after recover", "endpoint_id", endpointID, "woken", n, "of", len(waiting), "error", err)
			return
		}
		s.log.Info("woke waiting deliveries after recover", "endpoint_id", endpointID, "woken", n, "of", len(waiting))
	}()
	return nil
}

// recoverPaceBound bounds a recover's background wake-up: past it the
// deliveries it has not reached wake at the end of their own waits (an
// hour at most for one deferred by the circuit).
const recoverPaceBound = time.Hour

// eachExecution calls fn for every execution matching query, a page of
// 1,000 at a time.
func (s *Server) eachExecution(ctx context.Context, query string, fn func(*workflowpb.WorkflowExecutionInfo)) error {
	var token []byte
	for {
		resp, err := s.temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query, PageSize: 1000, NextPageToken: token})
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
