package store

import (
	"context"
	"time"
)

// OpEvent is an operational event (internal/opevents) in the store's
// outbox. The change it announces writes it in the same transaction, so
// the event exists exactly when the change does; the outbox publisher
// (internal/outbox) publishes it through ingest and deletes it.
type OpEvent struct {
	// ID is the event's ID, the outbox row's key: recording an ID
	// already in the outbox keeps the first, and publishing it again
	// after a crash is deduplicated by ingest.
	ID, Type string
	// TenantID and TenantIncarnation are the tenant the event is about
	// ("" for the platform's).
	TenantID, TenantIncarnation string
	// About names the endpoint whose tenant the event is about: when it
	// is set and TenantIncarnation is not, the store takes the tenant and
	// incarnation of that endpoint, read in the transaction, if it exists.
	About string
	// Body is the event's JSON body.
	Body []byte
	// CreatedAt is when the row was written; Attempts counts its claims.
	CreatedAt time.Time
	Attempts  int
}

// Outbox is the store's queue of operational events to publish. The
// changes that announce themselves take the events to record as their
// last arguments.
type Outbox interface {
	// ClaimOpEvents leases up to n events due by now, oldest first, for
	// lease: no other claim returns them until it ends. Each claim counts
	// an attempt. Concurrent claims (several processes) get distinct rows.
	ClaimOpEvents(ctx context.Context, now time.Time, lease time.Duration, n int) ([]OpEvent, error)
	// DeleteOpEvent removes a published event; a missing one is no error.
	DeleteOpEvent(ctx context.Context, id string) error
	// RetryOpEvent makes a claimed event due again at at, after a failed
	// publish, keeping lastError (no secret, no URL) for the operator.
	RetryOpEvent(ctx context.Context, id string, at time.Time, lastError string) error
	// OutboxWake receives after a commit in this process that recorded
	// events, so the publisher need not wait for its next poll.
	OutboxWake() <-chan struct{}
}
