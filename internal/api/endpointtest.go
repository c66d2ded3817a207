package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/store"
)

// TestEventType is the type of the event POST /v1/endpoints/{id}/test sends.
const TestEventType = "hookd.test"

// Bounds of the wait for a test delivery's first attempt: the endpoint's
// own timeout plus testWaitSlack, polling the workflow every testPoll, each
// query given at most testQuery. A query that reaches the run while its
// first workflow task is in flight waits in Temporal's buffer and is then
// sent to the worker through matching; bounding it means one stuck there
// is asked again rather than spending the whole wait.
const (
	testWaitSlack = 10 * time.Second
	// MaxTestWait bounds the whole test route, whatever the endpoint's
	// timeout (up to delivery.MaxTimeout, 60 s): it answers 202 with
	// outcome "pending" by then, well inside the HTTP server's 60 s write
	// timeout, past which a client would get an empty reply.
	MaxTestWait = 40 * time.Second
	testPoll    = 50 * time.Millisecond
	testQuery   = 2 * time.Second
)

// outcomeCircuitOpen is a test's outcome when the endpoint's circuit held
// its first attempt back (the circuit opened after the route checked it).
const outcomeCircuitOpen = wire.TestResultOutcomeCircuitOpen

// refuseHeldBack refuses a test the endpoint's circuit would hold back
// unsent: open and cooling down, or half-open with its probe in flight.
// A store that cannot say lets the test go ahead, as attempts do.
func (s *Server) refuseHeldBack(ctx context.Context, endpointID string) error {
	b, err := s.store.Circuit(ctx, endpointID)
	if err != nil || circuit.TakesAttempts(true, false, b, s.circuit, s.now()).Allowed {
		return nil
	}
	if b.State == circuit.Open {
		return &Error{Code: CodeConflict, Field: "circuit", Message: fmt.Sprintf(
			"the endpoint's circuit is open until %s after %d consecutive failures; recover the endpoint (POST /v1/endpoints/%s/recover) to test it now",
			b.OpenUntil.UTC().Format(time.RFC3339), b.Failures, endpointID)}
	}
	return &Error{Code: CodeConflict, Field: "circuit", Message: fmt.Sprintf( // half-open, its probe out
		"the endpoint's circuit is half-open with a probe in flight; try again shortly, or recover the endpoint (POST /v1/endpoints/%s/recover)", endpointID)}
}

// outcomePending is a test's outcome when its first attempt was not known
// within the wait; the delivery goes on and can be followed by its ID.
const outcomePending = wire.TestResultOutcomePending

// testOut is the first attempt of the test delivery, as the answer of
// POST /v1/endpoints/{id}/test shows it; made says the attempt was made
// and is known (answered 200, else 202).
type testOut struct {
	wire.TestResult
	made bool
}

// testEndpoint sends a signed hookd.test event to one enabled endpoint,
// whatever its filter, through a real delivery workflow of a single
// attempt (a failed test is not retried nor dead-lettered), and answers
// with that attempt's outcome. An endpoint whose circuit holds
// deliveries back is refused with 409 naming the circuit. If the attempt
// is not known in time the answer is 202 with outcome "pending"
// ("circuit_open" when the circuit opened meanwhile and holds it back).
func (s *Server) testEndpoint(w http.ResponseWriter, r *http.Request) {
	var body wire.TestRequest
	if err := s.decode(w, r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	out, err := s.TestEndpoint(r.Context(), chi.URLParam(r, "id"), wire.Deref(body.EventType))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	status := http.StatusOK
	if !out.made {
		status = http.StatusAccepted
	}
	writeJSON(w, status, out.TestResult)
}

// TestEndpoint sends a test event to the endpoint, if the scope of ctx may
// see it, and returns its first attempt (see testEndpoint): a hookd.test
// event, or with eventType one of that catalog type carrying its first
// example.
func (s *Server) TestEndpoint(ctx context.Context, id, eventType string) (TestResult, error) {
	if err := permit(ctx, authz.SendTest); err != nil {
		return TestResult{}, err
	}
	example, err := s.testExample(ctx, eventType)
	if err != nil {
		return TestResult{}, err
	}
	// The route's own deadline, from its start: the wait below gets what
	// the lookups and the start left of it.
	ctx, cancelRoute := context.WithTimeout(ctx, s.testWait)
	defer cancelRoute()
	ep, err := s.endpointIn(ctx, id)
	if err == nil && !ep.Enabled {
		// Its delivery would wait, unsent, until the endpoint is enabled.
		err = &Error{Code: CodeConflict, Field: "enabled", Message: "endpoint is disabled; enable it to test it"}
	}
	if err == nil {
		err = s.refuseHeldBack(ctx, ep.ID)
	}
	if err == nil {
		err = s.quotas.allowTest(ep.ID)
	}
	if err != nil {
		return TestResult{}, err
	}
	ev, err := testEvent(ep.ID, s.now().UTC())
	if err != nil {
		return TestResult{}, err
	}
	if eventType != "" {
		ev.Type, ev.Body = eventType, example
	}
	res, err := s.publisher.PublishTo(ctx, ev, []*store.Endpoint{ep})
	if err != nil {
		return TestResult{}, fmt.Errorf("%w: send test event: %w", errUnavailable, err)
	}
	out := testOut{TestResult: wire.TestResult{DeliveryID: res.Deliveries[0].ID, EventID: ev.ID, Outcome: outcomePending}}
	ctx, cancel := context.WithTimeout(ctx, delivery.AttemptTimeout(ep.Timeout)+testWaitSlack)
	defer cancel()
	state, known, qerr := s.firstAttempt(ctx, out.DeliveryID)
	if !known || len(state.Attempts) == 0 {
		// Not known in time, or deferred (the endpoint's circuit is open):
		// the delivery goes on and can be followed by its ID.
		if state.WaitReason != "" {
			out.Outcome, out.Error = wire.TestResultOutcomeDeferred, state.WaitReason
			if state.WaitReason == delivery.WaitCircuitOpen {
				out.Outcome = outcomeCircuitOpen
			}
		}
		s.log.Warn("test event: first attempt not made yet", "endpoint_id", ep.ID, "delivery_id", out.DeliveryID, "outcome", out.Outcome, "last_query_error", qerr)
		return out, nil
	}
	at := state.Attempts[0]
	out.Outcome, out.Status, out.ErrorClass, out.Error = wire.TestResultOutcome(at.Outcome), at.Status, at.ErrorClass, at.Error
	out.DurationMS = float64(at.Duration.Microseconds()) / 1000
	out.Response, out.made = at.Response, true
	s.log.Info("test event sent", "endpoint_id", ep.ID, "delivery_id", out.DeliveryID, "outcome", out.Outcome, "status", out.Status)
	return out, nil
}

// testEvent is a fresh hookd.test event for an endpoint: a unique event ID
// per call, so every test is a new delivery.
func testEvent(endpointID string, now time.Time) (ingest.Event, error) {
	body, err := json.Marshal(struct {
		Message    string    `json:"message"`
		EndpointID string    `json:"endpoint_id"`
		SentAt     time.Time `json:"sent_at"`
	}{"This is a test event sent by hookd.", endpointID, now})
	if err != nil {
		return ingest.Event{}, fmt.Errorf("encode test event: %w", err)
	}
	return ingest.Event{ID: delivery.NewID(delivery.PrefixTestEvent), Type: TestEventType, Body: string(body), SingleAttempt: true}, nil
}

// testExample is the first example of a catalog type, compact, for a
// test event of that type; "" for no type.
func (s *Server) testExample(ctx context.Context, eventType string) (string, error) {
	if eventType == "" {
		return "", nil
	}
	e, err := s.catalog.Lookup(ctx, eventType)
	switch {
	case err != nil:
		return "", err
	case e == nil:
		return "", invalid("event_type", "no such type in the event-type catalog")
	case len(e.Examples) == 0:
		return "", invalid("event_type", "the catalog type %q has no example to send", eventType)
	}
	return string(compact(e.Examples[0])), nil
}

// firstAttempt polls the delivery workflow's state query until it holds
// an attempt or says the delivery waits (a deferral), or ctx ends (false,
// with the last query's error if it failed). The query also answers for a
// closed run, so a delivery that completed between two polls is read the
// same way.
func (s *Server) firstAttempt(ctx context.Context, deliveryID string) (delivery.Result, bool, error) {
	tick := time.NewTicker(testPoll)
	defer tick.Stop()
	var last error
	for {
		// Fails while the run's first workflow task is still running;
		// the next poll asks again.
		state, err := s.queryState(ctx, deliveryID)
		if err == nil && (len(state.Attempts) > 0 || state.WaitReason != "") {
			return state, true, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return delivery.Result{}, false, last
		case <-tick.C:
		}
	}
}

// queryState asks a delivery's run for its state, for at most testQuery.
func (s *Server) queryState(ctx context.Context, deliveryID string) (delivery.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, testQuery)
	defer cancel()
	var state delivery.Result
	v, err := s.temporal.QueryWorkflow(ctx, deliveryID, "", delivery.QueryState)
	if err == nil {
		err = v.Get(&state)
	}
	return state, err
}
