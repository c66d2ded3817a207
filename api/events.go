package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/converter"

	"github.com/hookd/hookd/delivery"
	"github.com/hookd/hookd/store"
)

// eventIn is the body of POST /v1/events.
type eventIn struct {
	EventID *string         `json:"event_id"`
	Type    *string         `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

type deliveryRef struct {
	ID         string `json:"id"`
	EndpointID string `json:"endpoint_id"`
}

// eventOut is the answer to an accepted event.
type eventOut struct {
	EventID    string        `json:"event_id"`
	Deliveries []deliveryRef `json:"deliveries"`
	Duplicate  bool          `json:"duplicate"`
}

// event is a validated event ready to fan out.
type event struct {
	id, typ string
	body    string // compact JSON, serialized once here
}

func (s *Server) postEvent(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, s.maxPayload+16<<10)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in eventIn
	if err := decodeStrict(body, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	ev, err := s.validateEvent(in, r.Header.Get("Idempotency-Key"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out, err := s.ingest(r.Context(), ev)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, out)
}

// validateEvent checks an event and serializes its payload once: compact
// JSON, the exact bytes every attempt will send.
func (s *Server) validateEvent(in eventIn, idempotencyKey string) (event, error) {
	if in.Type == nil || *in.Type == "" {
		return event{}, invalid("type", "is required")
	}
	if err := validateEventType("type", *in.Type); err != nil {
		return event{}, err
	}
	if len(in.Payload) == 0 || bytes.Equal(in.Payload, []byte("null")) {
		return event{}, invalid("payload", "is required")
	}
	if in.Payload[0] != '{' {
		return event{}, invalid("payload", "must be a JSON object")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, in.Payload); err != nil {
		return event{}, invalid("payload", "invalid JSON")
	}
	if int64(buf.Len()) > s.maxPayload {
		return event{}, &Error{Code: CodeTooLarge, Field: "payload", Message: "payload exceeds " + byteSize(s.maxPayload)}
	}
	id := idempotencyKey
	if in.EventID != nil {
		if *in.EventID == "" {
			return event{}, invalid("event_id", "must not be empty; omit it to have one generated")
		}
		if id != "" && id != *in.EventID {
			return event{}, invalid("event_id", "differs from the Idempotency-Key header")
		}
		id = *in.EventID
	}
	if id == "" {
		id = newID("evt_")
	}
	if err := validateEventID(id); err != nil {
		return event{}, err
	}
	return event{id: id, typ: *in.Type, body: buf.String()}, nil
}

// ingest starts one delivery workflow per matching endpoint and returns
// only once Temporal has durably accepted every start: the workflow start
// is the outbox. A start Temporal refuses as a duplicate is compared with
// the running delivery's digest: the same event is a duplicate, a different
// one reusing the ID is a conflict.
func (s *Server) ingest(ctx context.Context, ev event) (eventOut, error) {
	eps, err := s.store.MatchingEndpoints(ctx, ev.typ)
	if err != nil {
		return eventOut{}, fmt.Errorf("match endpoints: %w", err)
	}
	out := eventOut{EventID: ev.id, Deliveries: make([]deliveryRef, len(eps))}
	results := make([]startResult, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		req := newRequest(ev, ep)
		out.Deliveries[i] = deliveryRef{ID: req.DeliveryID, EndpointID: ep.ID}
		wg.Go(func() { results[i] = s.start(ctx, req) })
	}
	wg.Wait()
	dups := 0
	for i, res := range results {
		switch {
		case res.err != nil:
			return eventOut{}, res.err
		case res.conflict:
			return eventOut{}, &Error{Code: CodeConflict, Field: "event_id",
				Message: fmt.Sprintf("event %s was already accepted with a different type or payload (delivery %s)", ev.id, out.Deliveries[i].ID)}
		case res.duplicate:
			dups++
		}
	}
	out.Duplicate = dups > 0 && dups == len(results)
	if out.Duplicate {
		s.log.Info("duplicate event", "event_id", ev.id, "deliveries", dups)
	}
	return out, nil
}

// newRequest builds the delivery of ev to ep.
func newRequest(ev event, ep *store.Endpoint) delivery.Request {
	schedule := ep.RetrySchedule
	if len(schedule) == 0 {
		schedule = delivery.DefaultSchedule
	}
	return delivery.Request{
		DeliveryID: delivery.ID(ev.id, ep.ID),
		EventID:    ev.id,
		EventType:  ev.typ,
		EndpointID: ep.ID,
		Body:       ev.body,
		Schedule:   schedule,
		Timeout:    cmpDuration(ep.Timeout, delivery.DefaultTimeout),
	}
}

type startResult struct {
	duplicate, conflict bool
	err                 error
}

// start starts one delivery; a duplicate start is checked against the
// existing run's digest.
func (s *Server) start(ctx context.Context, req delivery.Request) startResult {
	opts := delivery.StartOptions(req, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
	opts.EnableEagerStart = s.eager
	_, err := s.temporal.ExecuteWorkflow(ctx, opts, delivery.WorkflowDelivery, req)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err == nil {
		return startResult{}
	}
	if !errors.As(err, &started) {
		return startResult{err: fmt.Errorf("%w: start delivery %s: %w", errUnavailable, req.DeliveryID, err)}
	}
	digest, err := s.digestOf(ctx, req.DeliveryID)
	if err != nil {
		return startResult{err: err}
	}
	if digest != delivery.EventDigest(req.EventType, req.Body) {
		return startResult{conflict: true}
	}
	return startResult{duplicate: true}
}

// digestOf reads the event digest recorded in a delivery's memo.
func (s *Server) digestOf(ctx context.Context, deliveryID string) (string, error) {
	desc, err := s.temporal.DescribeWorkflowExecution(ctx, deliveryID, "")
	if err != nil {
		return "", fmt.Errorf("%w: describe delivery %s: %w", errUnavailable, deliveryID, err)
	}
	var digest string
	p := desc.GetWorkflowExecutionInfo().GetMemo().GetFields()[delivery.MemoDigest]
	if p != nil {
		_ = converter.GetDefaultDataConverter().FromPayload(p, &digest)
	}
	return digest, nil
}
