// Package store is hookd's endpoint store: tenants, their tokens and portal
// sessions, endpoints, their event-type filters and retry settings, their
// signing secrets, encrypted at rest, and the record of every accepted event.
// SQLite backs the embedded default and PostgreSQL backs production; both
// implement Store and pass the same conformance suite.
package store

import (
	"context"
	"errors"
	"time"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/contentfilter"
	"github.com/hookd/hookd/signing"
)

// ErrNotFound is returned when an endpoint, an event, a tenant or a token
// does not exist.
var ErrNotFound = errors.New("not found")

// ErrLimitReached is returned by CreateEndpointWithin when the tenant
// has as many endpoints as it may.
var ErrLimitReached = errors.New("limit reached")

// ErrInvalidCursor is returned by ListEndpoints and ListEvents for a
// cursor they did not issue.
var ErrInvalidCursor = errors.New("invalid cursor")

// Endpoint is a URL that receives signed deliveries of matching events.
type Endpoint struct {
	ID string
	// TenantID is the tenant the endpoint belongs to; "" for the
	// platform's own endpoints. It never changes after creation.
	TenantID string
	// TenantIncarnation is the incarnation of the tenant
	// (Tenant.Incarnation), set by CreateEndpoint; deliveries to the
	// endpoint carry it.
	TenantIncarnation string
	URL               string
	Description       string
	// EventTypes filters events by type: exact names or prefix wildcards
	// such as "order.*". Empty means every type.
	EventTypes []string
	// Filter is the endpoint's content filter: a CEL expression over the
	// event (internal/contentfilter) that must hold for the endpoint to
	// receive an event its EventTypes match; "" for none.
	Filter string
	// FilterProgram is Filter compiled. MatchingEndpoints sets it, compiled
	// once per version of the endpoint in its cache; nil elsewhere, and
	// when Filter no longer compiles.
	FilterProgram *contentfilter.Program
	Enabled       bool
	// DisabledReason says why a disabled endpoint is: "manual" (the API),
	// "auto" (it kept failing for the auto-disable period) or "gone" (its
	// receiver answered 410); "" while enabled. UpdateEndpoint stores it
	// as given.
	DisabledReason string
	// RetrySchedule is the delay before each retry; empty means the default.
	RetrySchedule []time.Duration
	// Timeout bounds one HTTP attempt; zero means the default.
	Timeout   time.Duration
	Metadata  map[string]string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Credentials are the custom headers and authentication sent to the
	// receiver, sealed at rest. GetEndpoint and ListEndpoints load them
	// (nil when there are none); MatchingEndpoints leaves them nil.
	// CreateEndpoint stores them when set; UpdateEndpoint keeps the stored
	// ones when nil and replaces them otherwise (an empty one removes
	// them).
	Credentials *Credentials
	// PropagateTrace sends the W3C trace context of each attempt's span
	// (traceparent, tracestate) to the receiver, when hookd traces. Off
	// by default: a trace ID tells the receiver about the sender.
	PropagateTrace bool
	// Signing is how attempts are signed and which headers carry the
	// delivery's identity, normalized (signing.Profile.Normalize); the
	// zero Profile, every endpoint's from before profiles, is Standard
	// Webhooks. It is no secret, and loaded with the endpoint.
	Signing signing.Profile
	// RateLimit caps how fast the endpoint receives attempts; nil is no
	// limit.
	RateLimit *RateLimit
}

// Matches reports whether the endpoint's filter accepts eventType.
func (e *Endpoint) Matches(eventType string) bool {
	if len(e.EventTypes) == 0 {
		return true
	}
	for _, f := range e.EventTypes {
		if TypeMatches(f, eventType) {
			return true
		}
	}
	return false
}

// TypeMatches reports whether one entry of an endpoint's EventTypes, an
// exact name, "*" or a prefix wildcard such as "order.*", accepts
// eventType.
func TypeMatches(f, eventType string) bool {
	if f == eventType || f == "*" {
		return true
	}
	prefix, ok := cutWildcard(f)
	return ok && len(eventType) > len(prefix) && eventType[:len(prefix)] == prefix
}

// cutWildcard turns "order.*" into "order." and reports whether f was a
// prefix wildcard.
func cutWildcard(f string) (string, bool) {
	if len(f) >= 2 && f[len(f)-2:] == ".*" {
		return f[:len(f)-1], true
	}
	return "", false
}

// Secret is one signing secret of an endpoint, in plaintext "whsec_" form.
// A secret with a non-zero ExpiresAt is being rotated out.
type Secret struct {
	Value     string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Page sizes of every list hookd answers, from the store or from Temporal
// visibility.
const (
	DefaultPageSize = 50
	MaxPageSize     = 500
)

// Page asks for one page of a list.
type Page struct {
	Cursor string // opaque; empty for the first page
	Limit  int    // at most this many; zero means DefaultPageSize
}

// Store persists endpoints and their secrets.
type Store interface {
	// CreateEndpoint inserts ep (ID, CreatedAt and UpdatedAt set by the
	// caller) with its first secret. It returns ErrTenantNotFound when
	// ep.TenantID names no tenant.
	// It sets ep.TenantIncarnation to its tenant's.
	CreateEndpoint(ctx context.Context, ep *Endpoint, secret string) error
	// CreateEndpointWithin is CreateEndpoint, refusing with
	// ErrLimitReached an endpoint of a tenant that already has
	// maxPerTenant endpoints (zero or less: no limit), atomically with the
	// insert. It records events in the outbox with the endpoint.
	CreateEndpointWithin(ctx context.Context, ep *Endpoint, secret string, maxPerTenant int, events ...OpEvent) error
	// GetEndpoint returns the endpoint or ErrNotFound.
	GetEndpoint(ctx context.Context, id string) (*Endpoint, error)
	// ListEndpoints returns a page of the endpoints f selects, ordered by
	// creation, and the cursor of the next page ("" when there is none).
	ListEndpoints(ctx context.Context, f TenantFilter, p Page) ([]*Endpoint, string, error)
	// UpdateEndpoint replaces the mutable fields of an existing endpoint
	// (all but ID, TenantID and CreatedAt), or returns ErrNotFound. It
	// records events in the outbox with the change.
	UpdateEndpoint(ctx context.Context, ep *Endpoint, events ...OpEvent) error
	// DisableEndpoint disables an enabled endpoint with reason, at at,
	// and reports whether it changed it: of several workers disabling
	// the same endpoint, one is told it did, and only that one records
	// events in the outbox with the change. ErrNotFound if there is no
	// such endpoint.
	DisableEndpoint(ctx context.Context, id, reason string, at time.Time, events ...OpEvent) (bool, error)
	// DeleteEndpoint removes an endpoint and its secrets, or returns
	// ErrNotFound. It records events in the outbox with the change.
	DeleteEndpoint(ctx context.Context, id string, events ...OpEvent) error
	// MatchingEndpoints returns the endpoints of the tenant ("" for the
	// endpoints without a tenant) whose filter accepts eventType, disabled
	// ones included: a disabled endpoint's deliveries are held, not skipped.
	MatchingEndpoints(ctx context.Context, tenantID, eventType string) ([]*Endpoint, error)
	// Secrets returns the endpoint's secrets still valid at now, newest
	// first.
	Secrets(ctx context.Context, endpointID string, now time.Time) ([]Secret, error)
	// RotateSecret adds newSecret and makes every older secret expire at
	// now+overlap (at once when overlap is zero).
	RotateSecret(ctx context.Context, endpointID, newSecret string, now time.Time, overlap time.Duration) error
	Circuits
	Outbox
	RateLimits
	Events
	Tenants
	Portal
	Branding
	EventTypes
	// Close releases the store's connections.
	Close() error
}

// Circuits keeps each endpoint's circuit breaker, shared by every worker.
type Circuits interface {
	// Circuit returns the endpoint's breaker (closed if never written).
	Circuit(ctx context.Context, endpointID string) (circuit.Breaker, error)
	// UpdateCircuit applies fn to the endpoint's breaker atomically and
	// stores the result, which it returns. It returns ErrNotFound if the
	// endpoint does not exist.
	UpdateCircuit(ctx context.Context, endpointID string, fn func(circuit.Breaker) circuit.Breaker) (circuit.Breaker, error)
	// UpdateCircuitAnnouncing is UpdateCircuit whose fn also returns the
	// events announcing the change, recorded in the outbox in the same
	// transaction.
	UpdateCircuitAnnouncing(ctx context.Context, endpointID string, fn func(circuit.Breaker) (circuit.Breaker, []OpEvent)) (circuit.Breaker, error)
}
