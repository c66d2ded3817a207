// Package expunge erases events: the one home of what an expunge does,
// shared by the API (one event) and the tenant deletion's background job
// (every event of the tenant). The endpoint store destroys the event's
// payload and data key (internal/eventkey), which sealed every copy of
// its body in Temporal's history; the deliveries still running are told
// to end (the expunge signal) and the dead letters are terminated; and
// hookd.event.expunged is recorded in the store's outbox, once, in the
// transaction that expunges the event.
package expunge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/api/serviceerror"
	"golang.org/x/sync/errgroup"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
)

// Store is what an expunge changes in the endpoint store.
type Store interface {
	ExpungeEvent(ctx context.Context, id, by, reason string, at time.Time, announce func(*store.Event) []store.OpEvent) (*store.Event, bool, error)
}

// Temporal is what an expunge asks of Temporal (the client).
type Temporal interface {
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
	TerminateWorkflow(ctx context.Context, workflowID, runID, reason string, details ...any) error
}

// ErrTemporal wraps a failure to end an event's deliveries: the store's
// part is done, and expunging again finishes it.
var ErrTemporal = errors.New("end the event's deliveries in Temporal")

// concurrency bounds the Temporal calls in flight for one event.
const concurrency = 8

// Expunger expunges events. It is safe for concurrent use.
type Expunger struct {
	store    Store
	temporal Temporal
	log      *slog.Logger
}

// New returns an Expunger.
func New(st Store, tc Temporal, log *slog.Logger) *Expunger {
	return &Expunger{store: st, temporal: tc, log: log}
}

// Expunge expunges event id by by for reason at at, and returns its
// record (store.ErrNotFound when there is none) and whether this call
// expunged it. An event expunged before is left as it was in the store,
// and what it left running in Temporal is ended again, so a retry after
// a failure completes it.
func (x *Expunger) Expunge(ctx context.Context, id, by, reason string, at time.Time) (*store.Event, bool, error) {
	ev, changed, err := x.store.ExpungeEvent(ctx, id, by, reason, at, func(ev *store.Event) []store.OpEvent {
		return []store.OpEvent{opevents.ExpungedEvent(ev.ID, ev.TenantID, ev.TenantIncarnation, by, reason, ev.Expunge.At).Record()}
	})
	if err != nil {
		return nil, false, err
	}
	if changed {
		x.log.Info("event expunged", "event_id", ev.ID, "tenant_id", ev.TenantID, "by", by, "deliveries", len(ev.Deliveries), "keyless", ev.Expunge.Keyless)
	}
	if err := x.endDeliveries(ctx, ev); err != nil {
		return ev, changed, err
	}
	return ev, changed, nil
}

// endDeliveries sends each delivery still running the expunge signal (it
// ends expunged, not attempted again) and terminates each dead letter
// (removed from the queue, never redriven). A closed run or a missing
// dead letter is skipped.
func (x *Expunger) endDeliveries(ctx context.Context, ev *store.Event) error {
	var g errgroup.Group
	g.SetLimit(concurrency)
	for _, d := range ev.Deliveries {
		g.Go(func() error {
			if err := x.temporal.SignalWorkflow(ctx, d.ID, "", delivery.SignalExpunge, nil); err != nil && !notFound(err) {
				return fmt.Errorf("%w: signal delivery %s: %w", ErrTemporal, d.ID, err)
			}
			if err := x.temporal.TerminateWorkflow(ctx, delivery.DeadLetterID(d.ID), "", "event expunged"); err != nil && !notFound(err) {
				return fmt.Errorf("%w: remove dead letter of %s: %w", ErrTemporal, d.ID, err)
			}
			return nil
		})
	}
	return g.Wait()
}

func notFound(err error) bool {
	var nf *serviceerror.NotFound
	return errors.As(err, &nf)
}
