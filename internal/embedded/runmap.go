package embedded

import (
	"sync"

	"go.temporal.io/server/chasm"
)

// runKey names one workflow run in one shard, as the execution store's
// requests do.
type runKey struct {
	shard     int32
	namespace string
	workflow  string
	run       string
	archetype chasm.ArchetypeID
}

// runMap holds a value per run for at most size runs, forgetting the
// oldest first. It is safe for concurrent use.
type runMap[V any] struct {
	mu    sync.Mutex
	m     map[runKey]V
	order []runKey // insertion order, a ring
	next  int
}

func newRunMap[V any](size int) *runMap[V] {
	return &runMap[V]{m: make(map[runKey]V), order: make([]runKey, size)}
}

// put holds v for k, forgetting the oldest run when full.
func (r *runMap[V]) put(k runKey, v V) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.order[r.next]; old != (runKey{}) {
		delete(r.m, old)
	}
	r.order[r.next] = k
	r.next = (r.next + 1) % len(r.order)
	r.m[k] = v
}

// take returns and forgets k's value.
func (r *runMap[V]) take(k runKey) (V, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.m[k]
	delete(r.m, k)
	return v, ok
}

// dropShard forgets every run of shard.
func (r *runMap[V]) dropShard(shard int32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.m {
		if k.shard == shard {
			delete(r.m, k)
		}
	}
}

// len is how many runs it holds.
func (r *runMap[V]) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}
