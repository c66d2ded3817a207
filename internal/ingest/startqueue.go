package ingest

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// startQueue admits at most n starts at a time, the earliest due first
// (and, due together, the first to ask): the delayed starts, so a long
// backlog behind one endpoint's limit does not hold back a start due
// sooner to another. It is safe for concurrent use.
type startQueue struct {
	mu      sync.Mutex
	free    int
	seq     uint64
	waiting waiters
}

func newStartQueue(n int) *startQueue { return &startQueue{free: n} }

// acquire waits for a turn for a start due at due, until then at the
// latest (ok false: no turn, the start is due now and goes without one),
// or fails when ctx ends. Each acquire that returns ok is matched by one
// release.
func (q *startQueue) acquire(ctx context.Context, due, until time.Time) (ok bool, err error) {
	q.mu.Lock()
	if q.free > 0 && len(q.waiting) == 0 {
		q.free--
		q.mu.Unlock()
		return true, nil
	}
	q.seq++
	w := &waiter{due: due, seq: q.seq, ready: make(chan struct{})}
	heap.Push(&q.waiting, w)
	q.mu.Unlock()
	timeout := time.NewTimer(time.Until(until))
	defer timeout.Stop()
	select {
	case <-w.ready:
		return true, nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-timeout.C:
	}
	q.mu.Lock()
	granted := w.index < 0
	if !granted {
		heap.Remove(&q.waiting, w.index)
	}
	q.mu.Unlock()
	if granted {
		q.release() // the turn came as the wait ended: pass it on
	}
	return false, err
}

// release ends a turn, handing it to the earliest due waiting start.
func (q *startQueue) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) == 0 {
		q.free++
		return
	}
	w := heap.Pop(&q.waiting).(*waiter)
	close(w.ready)
}

// waiter is a start waiting in a startQueue; index is its place in the
// heap, -1 once it has its turn.
type waiter struct {
	due   time.Time
	seq   uint64
	index int
	ready chan struct{}
}

// waiters is a min-heap of waiting starts by due time, then arrival.
type waiters []*waiter

func (h waiters) Len() int { return len(h) }
func (h waiters) Less(i, j int) bool {
	if !h[i].due.Equal(h[j].due) {
		return h[i].due.Before(h[j].due)
	}
	return h[i].seq < h[j].seq
}
func (h waiters) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waiters) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waiters) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	w.index = -1
	return w
}
