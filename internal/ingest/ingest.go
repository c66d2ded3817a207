// Package ingest accepts events: it records each event once, then fans it
// out to the endpoints subscribed to it, one delivery workflow per
// endpoint, started with a deterministic ID. The API publishes
// applications' events through it, and opevents publishes hookd's own
// operational events.
package ingest

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/metrics"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/tracing"
)

// Event is a validated event. Body is the payload serialized once, the
// exact bytes every attempt sends.
type Event struct {
	ID, Type, Body string
	// TenantID is the tenant the event belongs to: only that tenant's
	// endpoints receive it. An event without one reaches only the
	// endpoints without a tenant.
	TenantID string
	// TenantIncarnation is the tenant's incarnation
	// (store.Tenant.Incarnation), recorded with the event: a re-post
	// under another incarnation of the ID is a conflict.
	TenantIncarnation string
	// SingleAttempt makes each of its deliveries one attempt, never
	// retried nor dead-lettered (delivery.Request.SingleAttempt): the
	// endpoint test's event.
	SingleAttempt bool
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
	// Duplicate is true when the event was already recorded: Deliveries
	// are the ones it fanned out to then, and nothing new was fanned out.
	Duplicate bool `json:"duplicate"`
}

// Errors Publish returns.
var (
	// ErrConflict: the event ID was already used for another type or body.
	// Nothing was started.
	ErrConflict = errors.New("event ID already used for a different event")
	// ErrUnavailable: the store or Temporal failed; whatever was recorded
	// or started stays, and retrying the same event completes it.
	ErrUnavailable = errors.New("temporarily unavailable")
)

// Matcher finds a tenant's endpoints subscribed to an event type ("" for
// the endpoints without a tenant).
type Matcher interface {
	MatchingEndpoints(ctx context.Context, tenantID, eventType string) ([]*store.Endpoint, error)
}

// Records keeps the event records and reads the endpoints a recorded
// event fanned out to (the endpoint store).
type Records interface {
	ClaimEvent(ctx context.Context, ev *store.Event) (*store.Event, bool, error)
	GetEndpoint(ctx context.Context, id string) (*store.Endpoint, error)
}

// SlotReserver reserves an endpoint's next rate-limit slot: the endpoint
// store (store.RateLimits).
type SlotReserver interface {
	ReserveSlot(ctx context.Context, endpointID string, limit store.RateLimit, now time.Time) (store.Slot, error)
}

// DefaultMaxStarts bounds the delivery starts one request has in flight.
const DefaultMaxStarts = 32

// DefaultMaxEagerStarts bounds the eager delivery starts one publisher has
// in flight across all requests. The in-process worker has 256
// workflow-task slots, but a start's task keeps its slot after the start
// returns (the first attempt runs in it), so the bound is well below: at
// 32 a fan-out's starts stay eager and 1:1 throughput is unchanged, where
// 128 lets fan-out overrun the slots (docs/performance.md).
const DefaultMaxEagerStarts = 32

// DefaultMaxDelayedStarts bounds the delayed delivery starts (to a
// rate-limited endpoint with a backlog, delayed to their slots) one
// publisher has in flight across all requests, the earliest slot first.
// Such a delivery waits for its slot anyway: a backlog of them posted
// beside other traffic takes this share of the ingest path and no more,
// so deliveries due now are not held behind it, and it still starts
// faster than a limit drains it: over 700 a second on an idle 2-core
// machine (docs/performance.md). A backlog whose starts fall behind its
// slots has its next slots due now, and those starts are not delayed.
const DefaultMaxDelayedStarts = 2

// Starter starts delivery workflows: the Temporal client.
type Starter interface {
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error)
}

// Publisher records events and starts their delivery workflows.
// Temporal, Endpoints and Records are required (Validate).
type Publisher struct {
	Temporal  Starter
	Endpoints Matcher
	Records   Records
	// Slots reserves the first attempt's slot of each new delivery to a
	// rate-limited endpoint, and its start is delayed to it (throttle.go);
	// nil leaves the reservation to the attempt.
	Slots SlotReserver
	// NoEventKeys records events without a data key: their bodies go
	// into Temporal under the payload codec alone, where an expunge
	// cannot reach them. Off (keys on) unless asked for; the benchmark
	// compares the two.
	NoEventKeys bool
	// EagerStart hands new deliveries straight to an in-process worker.
	EagerStart bool
	// MaxStarts bounds the delivery starts in flight for one request: one
	// Publish, or every event of one Batch. Zero means DefaultMaxStarts.
	MaxStarts int
	// MaxEagerStarts bounds, with EagerStart, the starts in flight across
	// all requests; zero means DefaultMaxEagerStarts. The SDK starts a
	// workflow eagerly only while the worker has a free workflow-task slot
	// and otherwise sends its first task through the task queue: fan-out
	// (64 requests of 10 starts each) would overrun the 256 slots, and the
	// deliveries past them would wait in matching, at more CPU than an
	// eager one (docs/performance.md). Waiting here instead keeps every
	// start eager, and the back-pressure in the 202.
	MaxEagerStarts int
	// MaxDelayedStarts bounds the starts delayed to a rate limit's slot
	// in flight across all requests, the earliest slot first; zero means
	// DefaultMaxDelayedStarts.
	MaxDelayedStarts int
	Logger           *slog.Logger
	// Metrics counts duplicate ingests; nil counts nothing.
	Metrics *metrics.Metrics
	// Tracer traces the event record's claim; nil is tracing off. (The
	// workflow starts are traced by the Temporal client's interceptor.)
	Tracer *tracing.Tracer

	eagerOnce   sync.Once
	eagerSlots  chan struct{} // nil without EagerStart
	delayedOnce sync.Once
	delayed     *startQueue
	filterFails rateLog // the failed content filters' log lines
}

// Validate checks the fields a Publisher needs: Temporal, Endpoints and
// Records. Its builder calls it before the first Publish.
func (p *Publisher) Validate() error {
	switch {
	case p.Temporal == nil:
		return errors.New("ingest: publisher without a Temporal client")
	case p.Endpoints == nil:
		return errors.New("ingest: publisher without an endpoint matcher")
	case p.Records == nil:
		return errors.New("ingest: publisher without an event record store")
	}
	return nil
}

// Publish records ev, fanned out to the endpoints subscribed to its type,
// and starts its deliveries; see Batch.Publish.
func (p *Publisher) Publish(ctx context.Context, ev Event) (Result, error) {
	return p.Batch().Publish(ctx, ev)
}

// PublishTo is Publish to the given endpoints, whatever their filters.
func (p *Publisher) PublishTo(ctx context.Context, ev Event, eps []*store.Endpoint) (Result, error) {
	return p.Batch().publish(ctx, ev, func(context.Context) ([]*store.Endpoint, error) { return eps, nil })
}

// eagerBound is the publisher-wide bound on eager starts, nil without
// EagerStart.
func (p *Publisher) eagerBound() chan struct{} {
	p.eagerOnce.Do(func() {
		if p.EagerStart {
			p.eagerSlots = make(chan struct{}, cmp.Or(max(p.MaxEagerStarts, 0), DefaultMaxEagerStarts))
		}
	})
	return p.eagerSlots
}

// delayedQueue is the publisher-wide queue of starts delayed to a rate
// limit's slot.
func (p *Publisher) delayedQueue() *startQueue {
	p.delayedOnce.Do(func() {
		p.delayed = newStartQueue(cmp.Or(max(p.MaxDelayedStarts, 0), DefaultMaxDelayedStarts))
	})
	return p.delayed
}

// Batch returns a Batch: events published through it share one bound on
// the delivery starts in flight.
func (p *Publisher) Batch() *Batch {
	return &Batch{p: p, slots: make(chan struct{}, cmp.Or(p.MaxStarts, DefaultMaxStarts))}
}
