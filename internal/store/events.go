package store

import (
	"context"
	"time"

	"github.com/hookd/hookd/internal/circuit"
)

// Event is the durable record of an accepted event, the unit of identity:
// it is written before any of its deliveries starts, a re-post of its ID is
// checked against it, and it fixes the deliveries the event fanned out to,
// so a re-post never reaches an endpoint added later.
type Event struct {
	ID   string
	Type string
	// Digest identifies the type and payload together; a re-post with
	// another digest is a different event reusing the ID.
	Digest string
	// Payload is the body every delivery sends (compact JSON).
	Payload string
	// TenantID is the tenant the event belongs to; empty for none.
	TenantID string
	// TenantIncarnation is the incarnation of that tenant
	// (Tenant.Incarnation) when the event was accepted.
	TenantIncarnation string
	Deliveries        []EventDelivery
	AcceptedAt        time.Time
	// DataKey is the event's own random key (eventkey.KeySize bytes),
	// which seals the body its deliveries carry through Temporal. The
	// store keeps it wrapped by its master key; nil for an event recorded
	// without one (before per-event keys, or with them off) and once it
	// is expunged.
	DataKey []byte
	// Expunge says when, by whom and why the event was expunged: its
	// payload and key destroyed. Nil while it is not.
	Expunge *Expunge
}

// Expunge records an event's expunge.
type Expunge struct {
	At     time.Time
	By     string
	Reason string
	// Keyless says the event had no data key when it was expunged: its
	// bodies in Temporal are sealed only by the payload codec's
	// namespace key.
	Keyless bool
}

// AttemptRead is what an attempt reads of the store (ReadForAttempt).
type AttemptRead struct {
	Endpoint *Endpoint
	Key      EventKey
	// Secrets are the endpoint's secrets valid at the read, newest first.
	Secrets []Secret
	Circuit circuit.Breaker
}

// EventKey is what an attempt reads of its event with the endpoint
// (ReadForAttempt): the data key, or why there is none.
type EventKey struct {
	// Key is the event's data key; nil when Found is false, the event is
	// expunged or was recorded without one.
	Key []byte
	// Found says the event record exists (it is pruned past the dedup
	// window).
	Found bool
	// Expunged says the event was expunged.
	Expunged bool
}

// EventDelivery is one delivery an event fanned out to.
type EventDelivery struct {
	ID         string
	EndpointID string
}

// EventFilter narrows a list of events; the zero value lists them all.
type EventFilter struct {
	// Type is an exact type, a prefix wildcard such as "order.*", or "*",
	// with the rules of endpoint filters; empty means every type.
	Type string
	// EndpointID keeps the events that fanned out to this endpoint.
	EndpointID string
	// Since and Until bound AcceptedAt, both inclusive; zero is unbounded.
	Since, Until time.Time
	// Tenant, when set, keeps the events it selects by their tenant; nil
	// keeps every tenant's.
	Tenant *TenantFilter
}

// TypePrefix says how Type filters: every type (all), the types starting
// with prefix and longer than it (a wildcard), or exactly Type.
func (f EventFilter) TypePrefix() (prefix string, wildcard, all bool) {
	if f.Type == "" || f.Type == "*" {
		return "", false, true
	}
	if p, ok := cutWildcard(f.Type); ok {
		return p, true, false
	}
	return f.Type, false, false
}

// Events keeps the event records.
type Events interface {
	// ClaimEvent records ev if no event with its ID exists and returns it
	// with true. Otherwise it changes nothing and returns the existing
	// record with false. Of concurrent claims of one ID, from any number
	// of processes, exactly one returns true.
	ClaimEvent(ctx context.Context, ev *Event) (*Event, bool, error)
	// GetEvent returns the event or ErrNotFound.
	GetEvent(ctx context.Context, id string) (*Event, error)
	// ListEvents returns a page of the events f selects, newest first
	// (AcceptedAt, then ID, descending), and the cursor of the next page
	// ("" when there is none), or ErrInvalidCursor. Listed events carry no
	// Payload: GetEvent reads it.
	ListEvents(ctx context.Context, f EventFilter, p Page) ([]*Event, string, error)
	// ExpungeEvent destroys the event's payload and data key, keeps the
	// rest of its record (a re-post of its ID stays a conflict) and marks
	// it expunged by by for reason at at. It returns the record, and
	// false when it was expunged already (which it leaves as it was), or
	// ErrNotFound.
	// The call that expunged it records the events announce (nil: none)
	// returns for the expunged record in the outbox, in the same
	// transaction.
	ExpungeEvent(ctx context.Context, id, by, reason string, at time.Time, announce func(*Event) []OpEvent) (*Event, bool, error)
	// ReadForAttempt returns, in one round trip, what an attempt reads
	// before it sends: the endpoint as GetEndpoint returns it, the
	// event's key, the endpoint's secrets valid at now (as Secrets) and
	// its circuit (as Circuit). ErrNotFound names a missing endpoint,
	// never a missing event.
	ReadForAttempt(ctx context.Context, endpointID, eventID string, now time.Time) (*AttemptRead, error)
	// PruneEvents deletes the events accepted before before and says how
	// many it deleted.
	PruneEvents(ctx context.Context, before time.Time) (int64, error)
}
