// Package outbox publishes the operational events the endpoint store's
// outbox holds. The change that causes an event (an endpoint's creation,
// update, deletion or switch, a circuit or success-rate health change,
// an auto-disable, an expunge) writes it in its own transaction; the
// Publisher, one per process on its background lifecycle, claims due
// rows, publishes each through the emitter (ingest: the event record,
// then its deliveries' starts) under the row's event ID, and deletes the
// row only then. A failed publish is retried with backoff; a row a
// killed process had claimed is due again when its lease ends. Since the
// event ID is the row's, publishing a row twice (a crash after the
// publish, before the delete) is deduplicated by ingest: each event is
// delivered once.
package outbox

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
)

// Store is the endpoint store's outbox (store.Outbox).
type Store interface {
	ClaimOpEvents(ctx context.Context, now time.Time, lease time.Duration, n int) ([]store.OpEvent, error)
	DeleteOpEvent(ctx context.Context, id string) error
	RetryOpEvent(ctx context.Context, id string, at time.Time, lastError string) error
	OutboxWake() <-chan struct{}
}

// Emitter publishes an operational event (opevents.Emitter).
type Emitter interface {
	Emit(ctx context.Context, ev opevents.Event) error
}

// Defaults of Config.
const (
	// DefaultPoll is how often the outbox is read without a wake-up: the
	// rows a killed process left, and the retries that came due.
	DefaultPoll = 5 * time.Second
	// DefaultLease is how long a claim keeps its rows from other
	// claims: more than a publish takes (opevents.Timeout).
	DefaultLease = 30 * time.Second
	// batch is the rows one claim takes.
	batch = 50
	// maxBackoff bounds the wait before a failed publish is retried.
	maxBackoff = 5 * time.Minute
)

// Config configures a Publisher.
type Config struct {
	Store   Store
	Emitter Emitter
	Logger  *slog.Logger
	// Poll and Lease default to DefaultPoll and DefaultLease.
	Poll, Lease time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Publisher drains the outbox. Run it once per process.
type Publisher struct {
	cfg Config
	log *slog.Logger
}

// New returns a Publisher of cfg.
func New(cfg Config) *Publisher {
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Publisher{cfg: cfg, log: log}
}

// Run publishes the outbox's due rows now, after each wake-up of the
// store (a commit that recorded events) and every Poll, until ctx is
// done. A row it was publishing when ctx ended stays in the outbox.
func (p *Publisher) Run(ctx context.Context) {
	tick := time.NewTicker(p.cfg.Poll)
	defer tick.Stop()
	for {
		p.Drain(ctx)
		select {
		case <-ctx.Done():
			return
		case <-p.cfg.Store.OutboxWake():
		case <-tick.C:
		}
	}
}

// Drain publishes every row due now, a claim at a time, and returns how
// many it published. A publish that fails ends it: the rest of the claim
// is due again with the failed row, not tried against an ingest that is
// down (each try would wait out its timeout, past the claim's lease).
func (p *Publisher) Drain(ctx context.Context) int {
	published := 0
	for ctx.Err() == nil {
		rows, err := p.cfg.Store.ClaimOpEvents(ctx, p.cfg.Now(), p.cfg.Lease, batch)
		if err != nil {
			if ctx.Err() == nil {
				p.log.Warn("claim operational events", "error", err)
			}
			return published
		}
		for i, r := range rows {
			ok, retryAt := p.publish(ctx, r)
			if ok {
				published++
			}
			if !retryAt.IsZero() {
				p.release(ctx, rows[i+1:], retryAt)
				return published
			}
		}
		if len(rows) < batch {
			return published
		}
	}
	return published
}

// publish publishes one claimed row and deletes it, and reports whether
// it did; or makes it due again after backoff and says when. An event
// ingest refuses for good (its ID recorded with another body, or
// expunged) is deleted with an error logged: retrying cannot change it.
func (p *Publisher) publish(ctx context.Context, r store.OpEvent) (bool, time.Time) {
	err := p.cfg.Emitter.Emit(ctx, opevents.Recorded(r))
	if ctx.Err() != nil {
		return false, time.Time{} // stopping: the lease hands it to the next claim
	}
	if err != nil && !refused(err) {
		at := p.cfg.Now().Add(Backoff(r.Attempts))
		p.log.Warn("operational event not published; retrying", "event_id", r.ID, "event_type", r.Type, "attempts", r.Attempts, "retry_at", at, "error", err)
		if rerr := p.cfg.Store.RetryOpEvent(ctx, r.ID, at, err.Error()); rerr != nil {
			p.log.Warn("reschedule operational event", "event_id", r.ID, "error", rerr)
		}
		return false, at
	}
	if err != nil {
		p.log.Error("operational event refused by ingest; dropped", "event_id", r.ID, "event_type", r.Type, "error", err)
	}
	if derr := p.cfg.Store.DeleteOpEvent(ctx, r.ID); derr != nil {
		p.log.Warn("delete published operational event", "event_id", r.ID, "error", derr)
	}
	return err == nil, time.Time{}
}

// release makes claimed rows not tried due at at.
func (p *Publisher) release(ctx context.Context, rows []store.OpEvent, at time.Time) {
	for _, r := range rows {
		if err := p.cfg.Store.RetryOpEvent(ctx, r.ID, at, "not tried: an earlier publish failed"); err != nil {
			p.log.Warn("reschedule operational event", "event_id", r.ID, "error", err)
		}
	}
}

// refused reports whether every error err joins (the platform's copy, the
// tenant's) is ingest.ErrConflict: a refusal for good.
func refused(err error) bool {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if !refused(e) {
				return false
			}
		}
		return true
	}
	return errors.Is(err, ingest.ErrConflict)
}

// Backoff is the wait before the next publish of a row whose attempts
// publishes failed: a second, doubling, at most five minutes.
func Backoff(attempts int) time.Duration {
	d := time.Second
	for i := 1; i < attempts && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}
