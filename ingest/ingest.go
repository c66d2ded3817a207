// Package ingest fans an event out to the endpoints subscribed to it: one
// delivery workflow per endpoint, started with a deterministic ID so that a
// re-posted event deduplicates. The API publishes applications' events
// through it, and the activities publish hookd's own operational events.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/hookd/hookd/delivery"
	"github.com/hookd/hookd/metrics"
	"github.com/hookd/hookd/store"
)

// Event is a validated event. Body is the payload serialized once, the
// exact bytes every attempt sends.
type Event struct {
	ID, Type, Body string
}

// Delivery names one delivery an event fanned out to.
type Delivery struct {
	ID         string `json:"id"`
	EndpointID string `json:"endpoint_id"`
}

// Result is the outcome of publishing an event.
type Result struct {
	EventID    string     `json:"event_id"`
	Deliveries []Delivery `json:"deliveries"`
	// Duplicate is true when every delivery already existed.
	Duplicate bool `json:"duplicate"`
}

// Errors Publish returns.
var (
	// ErrConflict: the event ID was already used for another type or body.
	ErrConflict = errors.New("event ID already used for a different event")
	// ErrUnavailable: Temporal did not accept a start; retrying is safe.
	ErrUnavailable = errors.New("temporal unavailable")
)

// Matcher finds the endpoints subscribed to an event type.
type Matcher interface {
	MatchingEndpoints(ctx context.Context, eventType string) ([]*store.Endpoint, error)
}

// Publisher starts delivery workflows.
type Publisher struct {
	Temporal  client.Client
	Endpoints Matcher
	// EagerStart hands new deliveries straight to an in-process worker.
	EagerStart bool
	Logger     *slog.Logger
}

// Publish starts a delivery for every matching endpoint and returns once
// Temporal has durably accepted every start: the workflow start is the
// outbox. A start Temporal refuses as a duplicate is compared with the
// existing delivery's digest: the same event is a duplicate, a different
// one reusing the ID is ErrConflict.
func (p *Publisher) Publish(ctx context.Context, ev Event) (Result, error) {
	eps, err := p.Endpoints.MatchingEndpoints(ctx, ev.Type)
	if err != nil {
		return Result{}, fmt.Errorf("match endpoints: %w", err)
	}
	return p.PublishTo(ctx, ev, eps)
}

// PublishTo is Publish to the given endpoints, whatever their filters.
func (p *Publisher) PublishTo(ctx context.Context, ev Event, eps []*store.Endpoint) (Result, error) {
	out := Result{EventID: ev.ID, Deliveries: make([]Delivery, len(eps))}
	results := make([]startResult, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		req := NewRequest(ev, ep)
		out.Deliveries[i] = Delivery{ID: req.DeliveryID, EndpointID: ep.ID}
		wg.Go(func() { results[i] = p.start(ctx, req) })
	}
	wg.Wait()
	dups := 0
	for i, res := range results {
		switch {
		case res.err != nil:
			return Result{}, res.err
		case res.conflict:
			return Result{}, fmt.Errorf("%w: event %s (delivery %s)", ErrConflict, ev.ID, out.Deliveries[i].ID)
		case res.duplicate:
			dups++
		}
	}
	out.Duplicate = dups > 0 && dups == len(results)
	if out.Duplicate {
		metrics.DuplicateIngest()
		if p.Logger != nil {
			p.Logger.Info("duplicate event", "event_id", ev.ID, "deliveries", dups)
		}
	}
	return out, nil
}

// NewRequest builds the delivery of ev to ep, with ep's schedule and
// timeout or the defaults.
func NewRequest(ev Event, ep *store.Endpoint) delivery.Request {
	schedule := ep.RetrySchedule
	if len(schedule) == 0 {
		schedule = delivery.DefaultSchedule
	}
	timeout := ep.Timeout
	if timeout == 0 {
		timeout = delivery.DefaultTimeout
	}
	return delivery.Request{
		DeliveryID: delivery.ID(ev.ID, ep.ID),
		EventID:    ev.ID,
		EventType:  ev.Type,
		EndpointID: ep.ID,
		Body:       ev.Body,
		Schedule:   schedule,
		Timeout:    timeout,
	}
}

type startResult struct {
	duplicate, conflict bool
	err                 error
}

func (p *Publisher) start(ctx context.Context, req delivery.Request) startResult {
	opts := delivery.StartOptions(req, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
	opts.EnableEagerStart = p.EagerStart
	_, err := p.Temporal.ExecuteWorkflow(ctx, opts, delivery.WorkflowDelivery, req)
	if err == nil {
		return startResult{}
	}
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if !errors.As(err, &started) {
		return startResult{err: fmt.Errorf("%w: start delivery %s: %w", ErrUnavailable, req.DeliveryID, err)}
	}
	digest, err := p.digestOf(ctx, req.DeliveryID)
	if err != nil {
		return startResult{err: err}
	}
	if digest != delivery.EventDigest(req.EventType, req.Body) {
		return startResult{conflict: true}
	}
	return startResult{duplicate: true}
}

// digestOf reads the event digest recorded in a delivery's memo.
func (p *Publisher) digestOf(ctx context.Context, deliveryID string) (string, error) {
	desc, err := p.Temporal.DescribeWorkflowExecution(ctx, deliveryID, "")
	if err != nil {
		return "", fmt.Errorf("%w: describe delivery %s: %w", ErrUnavailable, deliveryID, err)
	}
	var digest string
	if pl := desc.GetWorkflowExecutionInfo().GetMemo().GetFields()[delivery.MemoDigest]; pl != nil {
		_ = converter.GetDefaultDataConverter().FromPayload(pl, &digest)
	}
	return digest, nil
}
