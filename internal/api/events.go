package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/store"
)

func (s *Server) postEvent(w http.ResponseWriter, r *http.Request) {
	r = arrived(r)
	body, err := readBody(w, r, s.maxPayload+16<<10)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var in wire.EventCreate
	if err := decodeStrict(body, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	ev, err := s.validateEvent(in, r.Header.Get("Idempotency-Key"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out, err := s.ingest(r.Context(), s.publisher.Batch(), ev)
	s.traceEvent(r.Context(), ev, out, err)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, acceptedOut(out))
}

// acceptedOut is an accepted event as the API shows it.
func acceptedOut(res ingest.Result) wire.EventAccepted {
	return wire.EventAccepted{EventID: res.EventID, Duplicate: res.Duplicate, Deliveries: listOf(res.Deliveries, func(d ingest.Delivery) wire.EventDelivery {
		return wire.EventDelivery{ID: d.ID, EndpointID: d.EndpointID}
	})}
}

// validateEvent checks an event and serializes its payload once: compact
// JSON, the exact bytes every attempt will send.
func (s *Server) validateEvent(in wire.EventCreate, idempotencyKey string) (ingest.Event, error) {
	if in.Type == "" {
		return ingest.Event{}, invalid("type", "is required")
	}
	if err := validatePostedType(in.Type); err != nil {
		return ingest.Event{}, err
	}
	if len(in.Payload) == 0 || bytes.Equal(in.Payload, []byte("null")) {
		return ingest.Event{}, invalid("payload", "is required")
	}
	if !utf8.Valid(in.Payload) {
		return ingest.Event{}, invalid("payload", "not valid UTF-8")
	}
	if in.Payload[0] != '{' {
		return ingest.Event{}, invalid("payload", "must be a JSON object")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, in.Payload); err != nil {
		return ingest.Event{}, invalid("payload", "invalid JSON")
	}
	if int64(buf.Len()) > s.maxPayload {
		return ingest.Event{}, &Error{Code: CodeTooLarge, Field: "payload", Message: "payload exceeds " + byteSize(s.maxPayload)}
	}
	id := idempotencyKey
	if in.EventID != nil {
		if *in.EventID == "" {
			return ingest.Event{}, invalid("event_id", "must not be empty; omit it to have one generated")
		}
		if id != "" && id != *in.EventID {
			return ingest.Event{}, invalid("event_id", "differs from the Idempotency-Key header")
		}
		id = *in.EventID
	}
	switch {
	case id == "":
		id = delivery.NewID(delivery.PrefixEvent)
	case in.EventID == nil && !eventIDPattern.MatchString(id):
		return ingest.Event{}, invalid("Idempotency-Key", "must be 1 to 255 characters of A-Z a-z 0-9 . _ : -")
	}
	if err := validateEventID(id); err != nil {
		return ingest.Event{}, err
	}
	ev := ingest.Event{ID: id, Type: in.Type, Body: buf.String()}
	if in.TenantID != nil {
		if err := validateTenantID("tenant_id", *in.TenantID); err != nil {
			return ingest.Event{}, err
		}
		ev.TenantID = *in.TenantID
	}
	return ev, nil
}

// arrived marks r's context with the time it is handled from, as the
// freshness of its events' lookups (store.FreshSince): they see every
// endpoint and event type changed before it, and an event's checks share
// one read of the store's change counters.
func arrived(r *http.Request) *http.Request {
	return r.WithContext(store.FreshSince(r.Context(), time.Now()))
}

// ingest publishes a validated event within its request's batch and maps
// the publisher's errors to API errors. An event the event-type catalog
// refuses (checkCatalog), or for a tenant that does not exist, starts
// nothing and is not recorded.
func (s *Server) ingest(ctx context.Context, b *ingest.Batch, ev ingest.Event) (ingest.Result, error) {
	if err := s.checkCatalog(ctx, ev); err != nil {
		return ingest.Result{}, err
	}
	if ev.TenantID != "" {
		t, err := s.store.GetTenant(ctx, ev.TenantID)
		if errors.Is(err, store.ErrNotFound) {
			return ingest.Result{}, tenantInvalid(store.ErrTenantNotFound)
		}
		if err != nil {
			return ingest.Result{}, err
		}
		ev.TenantIncarnation = t.Incarnation
	}
	res, err := b.Publish(ctx, ev)
	switch {
	case errors.Is(err, ingest.ErrConflict):
		return res, &Error{Code: CodeConflict, Field: "event_id",
			Message: fmt.Sprintf("event %s was already accepted with a different type or payload", ev.ID)}
	case errors.Is(err, ingest.ErrUnavailable):
		return res, fmt.Errorf("%w: %w", errUnavailable, err)
	}
	return res, err
}
