package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/eventkey"
	"github.com/hookd/hookd/internal/store"
)

// Batch publishes the events of one request, with at most the
// publisher's MaxStarts delivery starts in flight among all of them. It is
// safe for concurrent use.
type Batch struct {
	p     *Publisher
	slots chan struct{}
}

// Publish records ev, fanned out to its tenant's endpoints subscribed to
// its type whose content filter accepts it, and starts its deliveries. It returns once Temporal has durably accepted
// every start: the workflow start is the outbox.
//
// The record decides identity. The first post of an event ID claims it,
// with the fan-out decided then. A later post of the same type and
// payload is a duplicate: it answers the recorded deliveries and starts
// them again, which Temporal refuses for those that exist, so a start lost
// to a crash between record and starts is completed by the client's retry.
// A later post with another type, payload or tenant is ErrConflict, and
// nothing is started.
func (b *Batch) Publish(ctx context.Context, ev Event) (Result, error) {
	return b.publish(ctx, ev, func(ctx context.Context) ([]*store.Endpoint, error) {
		eps, err := b.p.Endpoints.MatchingEndpoints(ctx, ev.TenantID, ev.Type)
		if err != nil {
			return nil, err
		}
		return applyFilters(ev, eps, b.p.Metrics, &b.p.filterFails, b.p.Logger), nil
	})
}

func (b *Batch) publish(ctx context.Context, ev Event, fanOut func(context.Context) ([]*store.Endpoint, error)) (Result, error) {
	eps, err := fanOut(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("%w: match endpoints: %w", ErrUnavailable, err)
	}
	rec, err := b.p.newRecord(ev, eps)
	if err != nil {
		return Result{}, err
	}
	rec, claimed, err := b.p.claim(ctx, rec)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if !claimed {
		if rec.Expunge != nil {
			return Result{}, fmt.Errorf("%w: event %s was expunged", ErrConflict, ev.ID)
		}
		if rec.Digest != delivery.EventDigest(ev.Type, ev.Body) || rec.TenantID != ev.TenantID || rec.TenantIncarnation != ev.TenantIncarnation {
			return Result{}, fmt.Errorf("%w: event %s", ErrConflict, ev.ID)
		}
		if eps, err = b.p.endpointsOf(ctx, rec); err != nil {
			return Result{}, err
		}
	}
	sealed, err := sealBody(rec, ev)
	if err != nil {
		return Result{}, err
	}
	reqs := make([]delivery.Request, len(eps))
	for i, ep := range eps {
		reqs[i] = NewRequest(ev, ep)
		reqs[i].AcceptedAt = rec.AcceptedAt
		if sealed != nil {
			reqs[i].Body, reqs[i].SealedBody = "", sealed
		}
	}
	var limited []*store.Endpoint // reserve slots for a new event's deliveries only
	if claimed {
		limited = eps
	}
	if err := b.startAll(ctx, reqs, limited); err != nil {
		return Result{}, err
	}
	out := Result{EventID: ev.ID, Deliveries: make([]Delivery, len(rec.Deliveries)), Duplicate: !claimed}
	for i, d := range rec.Deliveries {
		out.Deliveries[i] = Delivery(d)
	}
	if out.Duplicate {
		b.p.Metrics.DuplicateIngest()
		if b.p.Logger != nil {
			b.p.Logger.InfoContext(ctx, "duplicate event", "event_id", ev.ID, "deliveries", len(out.Deliveries))
		}
	}
	return out, nil
}

// newRecord is the event record of ev fanned out to eps, accepted now,
// with a fresh data key unless the publisher records none.
func (p *Publisher) newRecord(ev Event, eps []*store.Endpoint) (*store.Event, error) {
	rec := record(ev, eps, time.Now())
	if p.NoEventKeys {
		return rec, nil
	}
	key, err := eventkey.New()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	rec.DataKey = key
	return rec, nil
}

// sealBody seals ev's body once, with its record's data key, for every
// delivery; nil when the record has no key (recorded without one).
func sealBody(rec *store.Event, ev Event) ([]byte, error) {
	if rec.DataKey == nil {
		return nil, nil
	}
	sealed, err := eventkey.Seal(rec.DataKey, ev.ID, ev.Body)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return sealed, nil
}

// record is the event record of ev fanned out to eps.
func record(ev Event, eps []*store.Endpoint, now time.Time) *store.Event {
	rec := &store.Event{
		ID: ev.ID, Type: ev.Type, Digest: delivery.EventDigest(ev.Type, ev.Body), Payload: ev.Body,
		TenantID: ev.TenantID, TenantIncarnation: ev.TenantIncarnation, AcceptedAt: now, Deliveries: make([]store.EventDelivery, len(eps)),
	}
	for i, ep := range eps {
		rec.Deliveries[i] = store.EventDelivery{ID: delivery.ID(ev.ID, ep.ID), EndpointID: ep.ID}
	}
	return rec
}

// endpointsOf loads the endpoints a recorded event fanned out to. One
// deleted since is left out: there is nothing left to deliver to.
func (p *Publisher) endpointsOf(ctx context.Context, rec *store.Event) ([]*store.Endpoint, error) {
	eps := make([]*store.Endpoint, 0, len(rec.Deliveries))
	for _, d := range rec.Deliveries {
		ep, err := p.Records.GetEndpoint(ctx, d.EndpointID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue
		case err != nil:
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		eps = append(eps, ep)
	}
	return eps, nil
}

// startAll starts every delivery, at most cap(b.slots) at a time across
// the batch, and returns the first error. With eps (a newly recorded
// event's endpoints, reqs[i] to eps[i]), each delivery to a rate-limited
// endpoint first reserves its slot, once it holds its batch slot: a slot
// reserved while the start still queued there would pass before the
// delivery ran. Then each waits for its turn (admit).
func (b *Batch) startAll(ctx context.Context, reqs []delivery.Request, eps []*store.Endpoint) error {
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	for i, req := range reqs {
		if err := acquire(ctx, b.slots); err != nil {
			wg.Wait()
			return fmt.Errorf("%w: start delivery %s: %w", ErrUnavailable, req.DeliveryID, err)
		}
		wg.Go(func() {
			defer func() { <-b.slots }()
			if eps != nil {
				b.p.reserveSlot(ctx, &req, eps[i])
			}
			done, err := b.p.admit(ctx, req)
			if err != nil {
				errs[i] = fmt.Errorf("%w: start delivery %s: %w", ErrUnavailable, req.DeliveryID, err)
				return
			}
			defer done()
			errs[i] = b.p.start(ctx, req)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// acquire takes a slot of sem (none if sem is nil), or fails when ctx ends.
func acquire(ctx context.Context, sem chan struct{}) error {
	if sem == nil {
		return nil
	}
	select {
	case sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// admit waits for req's turn to start: a start its slot delays in the
// publisher's delayed-start queue, the earliest slot first, until it is
// due; any other (and one that came due waiting) in its eager bound.
// done ends the turn.
func (p *Publisher) admit(ctx context.Context, req delivery.Request) (done func(), err error) {
	if startDelay(req, time.Now()) > 0 {
		q, due := p.delayedQueue(), req.Slot.At.Add(-req.Slot.Lead)
		ok, err := q.acquire(ctx, due, due.Add(-minStartDelay))
		if err != nil {
			return nil, err
		}
		if ok {
			return q.release, nil
		}
	}
	sem := p.eagerBound()
	if err := acquire(ctx, sem); err != nil {
		return nil, err
	}
	return func() {
		if sem != nil {
			<-sem
		}
	}, nil
}

// start starts one delivery. Temporal refusing it as already started means
// the delivery exists, which is what was asked.
func (p *Publisher) start(ctx context.Context, req delivery.Request) error {
	opts := delivery.StartOptions(req, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
	opts.EnableEagerStart = p.EagerStart
	if d := startDelay(req, time.Now()); d > 0 {
		opts.StartDelay, opts.EnableEagerStart = d, false
	}
	_, err := p.Temporal.ExecuteWorkflow(ctx, opts, delivery.WorkflowDelivery, req)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err == nil || errors.As(err, &started) {
		return nil
	}
	return fmt.Errorf("%w: start delivery %s: %w", ErrUnavailable, req.DeliveryID, err)
}

// NewRequest builds the delivery of ev to ep, with ep's schedule and
// timeout or the defaults.
func NewRequest(ev Event, ep *store.Endpoint) delivery.Request {
	return delivery.Request{
		DeliveryID: delivery.ID(ev.ID, ep.ID),
		EventID:    ev.ID,
		EventType:  ev.Type,
		EndpointID: ep.ID,
		TenantID:   ep.TenantID,
		// The endpoint's, stamped by the store from its tenant's row.
		TenantIncarnation: ep.TenantIncarnation,
		Body:              ev.Body,
		Schedule:          delivery.Schedule(ep.RetrySchedule),
		Timeout:           delivery.AttemptTimeout(ep.Timeout),
		Run:               1,
		SingleAttempt:     ev.SingleAttempt,
	}
}
