package sqlstore

import (
	"context"
	"sync"
	"time"
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

// versionReads shares reads of the change counters among concurrent
// callers, which is every event's ingest (twice: the catalog's check
// and the matching's). Each caller is answered by a read that began
// after it asked, so it sees every change committed before it asked:
// the caches it checks are as fresh as with a read of its own. The
// callers arriving while a read runs wait for the next one, which
// starts when it ends; under load one read answers all of them.
type versionReads struct {
	read func(ctx context.Context) (versions, error)

	mu      sync.Mutex
	running bool         // a read is in flight
	next    *versionRead // the read the callers arriving now wait for
}

// versionRead is one read and the callers waiting for it.
type versionRead struct {
	done chan struct{} // closed once v and err are set
	v    versions
	err  error
}

// get returns the counters as of a read begun after it was called.
func (r *versionReads) get(ctx context.Context) (versions, error) {
	r.mu.Lock()
	if r.next == nil {
		r.next = &versionRead{done: make(chan struct{})}
	}
	b := r.next
	if !r.running {
		r.running, r.next = true, nil
		go r.run(b)
	}
	r.mu.Unlock()
	select {
	case <-b.done:
		return b.v, b.err
	case <-ctx.Done():
		return versions{}, ctx.Err()
	}
}

// run makes read b, then each read callers asked for meanwhile, until
// none is wanted.
func (r *versionReads) run(b *versionRead) {
	for b != nil {
		ctx, cancel := context.WithTimeout(context.Background(), versionReadTimeout)
		b.v, b.err = r.read(ctx)
		cancel()
		close(b.done)
		r.mu.Lock()
		b, r.next = r.next, nil
		r.running = b != nil
		r.mu.Unlock()
	}
}
