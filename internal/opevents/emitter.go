package opevents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/store"
)

// Sink records an event fanned out to the given endpoints and starts its
// deliveries: ingest.Publisher.
type Sink interface {
	PublishTo(ctx context.Context, ev ingest.Event, eps []*store.Endpoint) (ingest.Result, error)
}

// Endpoints finds the endpoints subscribed to a type and reads one
// endpoint: the endpoint store.
type Endpoints interface {
	ingest.Matcher
	GetEndpoint(ctx context.Context, id string) (*store.Endpoint, error)
}

// Timeout bounds one Emit that its caller gave no deadline of its own.
const Timeout = 10 * time.Second

// TenantSuffix ends the ID of a tenant's copy of an operational event;
// the platform's copy has the ID alone.
const TenantSuffix = ":tenant"

// Emitter publishes operational events through ingest. Emit returns once
// the event is recorded and Temporal has every delivery's start, so a
// process stopping after it drops nothing; a failure is its caller's to
// log and retry (the outbox publisher, a delivery's activity).
type Emitter struct {
	sink      Sink
	endpoints Endpoints
}

// NewEmitter returns an emitter publishing through sink to the endpoints
// of eps subscribed to each event.
func NewEmitter(sink Sink, eps Endpoints) *Emitter {
	return &Emitter{sink: sink, endpoints: eps}
}

// Emit publishes ev to the platform's endpoints that subscribe to its type
// by name and, when it is about a tenant, as a second event (its ID +
// TenantSuffix) to that tenant's endpoints that do. An endpoint whose
// types are empty or "*" does not receive operational events: only one
// that names them ("hookd.*", "hookd.endpoint.*", an exact type) does.
// Without such an endpoint nothing is recorded. A nil Emitter emits nothing.
func (e *Emitter) Emit(ctx context.Context, ev Event) error {
	if e == nil {
		return nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, Timeout)
		defer cancel()
	}
	if ev.About != "" && ev.TenantID == "" {
		ep, err := e.endpoints.GetEndpoint(ctx, ev.About)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("emit %s: read endpoint: %w", ev.ID, err)
		}
		if ep != nil {
			ev.TenantID, ev.TenantIncarnation = ep.TenantID, ep.TenantIncarnation
		}
	}
	body, err := json.Marshal(ev.Body)
	if err != nil {
		return fmt.Errorf("emit %s: encode: %w", ev.ID, err)
	}
	err = e.publish(ctx, ingest.Event{ID: ev.ID, Type: ev.Type, Body: string(body)})
	if ev.TenantID != "" {
		err = errors.Join(err, e.publish(ctx, ingest.Event{
			ID: ev.ID + TenantSuffix, Type: ev.Type, Body: string(body), TenantID: ev.TenantID, TenantIncarnation: ev.TenantIncarnation,
		}))
	}
	return err
}

// publish records ev for its tenant's endpoints that name its type.
func (e *Emitter) publish(ctx context.Context, ev ingest.Event) error {
	eps, err := e.endpoints.MatchingEndpoints(ctx, ev.TenantID, ev.Type)
	if err != nil {
		return fmt.Errorf("emit %s: match endpoints: %w", ev.ID, err)
	}
	named := eps[:0:0]
	for _, ep := range eps {
		if NamesType(ep.EventTypes, ev.Type) {
			named = append(named, ep)
		}
	}
	if len(named) == 0 {
		return nil // no subscriber: nothing to record
	}
	if _, err := e.sink.PublishTo(ctx, ev, named); err != nil {
		return fmt.Errorf("emit %s: %w", ev.ID, err)
	}
	return nil
}

// NamesType reports whether an endpoint's event types name eventType
// itself or a wildcard under Reserved: a catch-all ("" or "*") does not.
func NamesType(types []string, eventType string) bool {
	for _, f := range types {
		if f == "*" || !IsReserved(f) {
			continue
		}
		if f == eventType || (strings.HasSuffix(f, ".*") && strings.HasPrefix(eventType, f[:len(f)-1])) {
			return true
		}
	}
	return false
}
