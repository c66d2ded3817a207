package sqlstore

import (
	"context"
	"sync"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// changeVersionsSQL reads both change counters in one query: the
// endpoints' (hookd_endpoint_changes, the matching cache's check) and
// the event types' (hookd_event_type_changes, the catalog's check).
const changeVersionsSQL = `SELECT (SELECT version FROM hookd_endpoint_changes WHERE id = 1),
	(SELECT version FROM hookd_event_type_changes WHERE id = 1)`

// versionReadTimeout bounds one read of the counters; a caller stops
// waiting for it when its own context ends.
const versionReadTimeout = 10 * time.Second

// versions are the change counters as one read saw them.
type versions struct{ endpoints, eventTypes int64 }

// versionReads shares reads of the change counters among callers, which
// is every event's ingest (twice: the catalog's check and the
// matching's). Each caller is answered by a read begun at or after its
// freshness (store.FreshnessOf: the event's arrival, or the call), so it
// sees every change committed before then, as a read of its own would:
// the last read if it began late enough, else the one running if it
// did, else the next one, which starts when the running one ends. An
// event's two checks then take one read, and under load one read
// answers the events that arrived before it began.
type versionReads struct {
	read func(ctx context.Context) (versions, error)

	mu      sync.Mutex
	last    *versionRead // the latest read that succeeded
	running *versionRead // the read in flight, nil if none
	next    *versionRead // the read the callers arriving now wait for
}

// versionRead is one read and the callers waiting for it.
type versionRead struct {
	begun time.Time     // set when it starts
	done  chan struct{} // closed once v and err are set
	v     versions
	err   error
}

// get returns the counters as of a read begun at or after ctx's
// freshness.
func (r *versionReads) get(ctx context.Context) (versions, error) {
	since := store.FreshnessOf(ctx, time.Now())
	r.mu.Lock()
	if b := r.last; b != nil && !b.begun.Before(since) {
		r.mu.Unlock()
		return b.v, nil
	}
	b := r.running
	if b == nil || b.begun.Before(since) {
		if r.next == nil {
			r.next = &versionRead{done: make(chan struct{})}
		}
		b = r.next
		if r.running == nil {
			r.startNext()
		}
	}
	r.mu.Unlock()
	select {
	case <-b.done:
		return b.v, b.err
	case <-ctx.Done():
		return versions{}, ctx.Err()
	}
}

// startNext makes the next read the running one and starts it; r.mu is
// held.
func (r *versionReads) startNext() {
	b := r.next
	r.next, r.running = nil, b
	b.begun = time.Now()
	go r.run(b)
}

// run makes read b, then each read callers asked for meanwhile, until
// none is wanted.
func (r *versionReads) run(b *versionRead) {
	ctx, cancel := context.WithTimeout(context.Background(), versionReadTimeout)
	b.v, b.err = r.read(ctx)
	cancel()
	r.mu.Lock()
	if b.err == nil {
		r.last = b
	}
	r.running = nil
	if r.next != nil {
		r.startNext()
	}
	r.mu.Unlock()
	close(b.done)
}
