package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/store"
)

// What is left of an expunged event's body in Temporal's history
// (the TemporalCopy of an event's view).
const (
	// copyUnreadable: sealed with the event's key, now destroyed.
	copyUnreadable = wire.Unreadable
	// copyNamespaceKey: the event had no key (recorded before per-event
	// keys, or with them off); its copy is sealed only by the payload
	// codec's namespace key.
	copyNamespaceKey = wire.NamespaceKeyOnly
)

// maxExpungeLinks bounds the delivery traces an expunge's span links to
// (one history read each).
const maxExpungeLinks = 8

func (s *Server) expungeEvent(w http.ResponseWriter, r *http.Request) {
	var body wire.ExpungeRequest
	if err := s.decode(w, r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	if body.Reason == "" || len(body.Reason) > 1024 {
		s.writeError(w, r, invalid("reason", "is required: why the event is expunged, at most 1024 characters"))
		return
	}
	out, err := s.ExpungeEvent(r.Context(), chi.URLParam(r, "id"), body.Reason)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// ExpungeEvent expunges the event (package expunge), if the scope of ctx
// may see it, by the scope's actor for reason: its ID, type, tenant,
// times and fan-out stay, so a re-post is still a conflict. Expunging
// again changes nothing in the store and ends whatever a first attempt
// left under way. In a hookd.event.expunge span when tracing is on,
// linked to its deliveries' traces.
func (s *Server) ExpungeEvent(ctx context.Context, id, reason string) (wire.EventRecord, error) {
	ev, err := s.event(ctx, id)
	if err != nil {
		return wire.EventRecord{}, err
	}
	ctx, end := s.span(ctx, "hookd.event.expunge", trace.WithAttributes(attribute.String("hookd.event.id", id)),
		trace.WithLinks(s.deliveryLinks(ctx, ev)...))
	out, err := s.expunge(ctx, ev, reason)
	end(err)
	return out, err
}

func (s *Server) expunge(ctx context.Context, ev *store.Event, reason string) (wire.EventRecord, error) {
	ev, _, err := s.expunger.Expunge(ctx, ev.ID, authz.FromContext(ctx).Actor(), reason, s.now().UTC())
	switch {
	case errors.Is(err, store.ErrNotFound):
		return wire.EventRecord{}, notFound(err, "event")
	case err != nil:
		return wire.EventRecord{}, fmt.Errorf("%w: %w", errUnavailable, err)
	}
	out := eventOf(ev)
	if err := s.deliveryStatuses(ctx, out.Deliveries); err != nil {
		return wire.EventRecord{}, err
	}
	expungedStatuses(ev, out.Deliveries)
	return out, nil
}

// expungedStatuses shows the deliveries of an expunged event that never
// succeeded as expunged (a dead-lettered one failed before the expunge;
// a running one is about to end so).
func expungedStatuses(ev *store.Event, ds []wire.EventRecordDelivery) {
	if ev.Expunge == nil {
		return
	}
	for i := range ds {
		if ds[i].Status != wire.EventRecordDeliveryStatusDelivered {
			ds[i].Status = wire.EventRecordDeliveryStatusExpunged
		}
	}
}

// expungeOf fills in what an event view says of its expunge.
func expungeOf(ev *store.Event, out *wire.EventRecord) {
	x := ev.Expunge
	if x == nil {
		return
	}
	out.ExpungedAt, out.ExpungedBy, out.ExpungeReason, out.TemporalCopy = x.At.UTC(), x.By, x.Reason, copyUnreadable
	if x.Keyless {
		out.TemporalCopy = copyNamespaceKey
	}
}

// deliveryLinks links to the traces the event's first deliveries started
// in, when tracing is on.
func (s *Server) deliveryLinks(ctx context.Context, ev *store.Event) []trace.Link {
	if s.tracer == nil {
		return nil
	}
	var links []trace.Link
	for _, d := range ev.Deliveries[:min(len(ev.Deliveries), maxExpungeLinks)] {
		lctx, cancel := context.WithTimeout(ctx, time.Second)
		links = append(links, s.startLinks(lctx, d.ID)...)
		cancel()
	}
	return links
}

// refuseExpunged refuses, with a conflict saying why, to redrive a
// delivery of an expunged event (its dead letter is gone, or is about to
// be: endDeliveries).
func (s *Server) refuseExpunged(ctx context.Context, eventID string) error {
	if eventID == "" {
		return nil
	}
	ev, err := s.store.GetEvent(ctx, eventID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: read event %s: %w", errUnavailable, eventID, err)
	}
	if ev.Expunge != nil {
		return &Error{Code: CodeConflict, Message: fmt.Sprintf("event %s was expunged at %s: its payload is destroyed, so its deliveries cannot be redriven", eventID, ev.Expunge.At.UTC().Format(time.RFC3339))}
	}
	return nil
}
