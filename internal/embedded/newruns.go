package embedded

import (
	"sync"
	"sync/atomic"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/server/chasm"
	p "go.temporal.io/server/common/persistence"
)

// newRunsSize bounds the runs kept; newRunsTTL is how long one is kept.
// A delivery's first read of its run comes milliseconds after the start
// (its eager workflow task's completion, or the start's visibility task);
// a run started with a delay is read when its timer fires, past the TTL,
// and is read from persistence as before.
const (
	newRunsSize = 1024
	newRunsTTL  = 2 * time.Second
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

// newRun is the mutable state of a run as its creation wrote it.
type newRun struct {
	state *p.InternalWorkflowMutableState
	at    time.Time
}

// newRuns keeps the rows each workflow run this history service created
// wrote, until the run's first read, so that read is answered without the
// nine queries (one per state table) a mutable-state read costs. Temporal
// does not cache the context of a run it has just created: the first
// RespondWorkflowTaskCompleted of an eagerly started delivery, or the
// start's visibility task, reads it back.
//
// A run's entry is what persistence holds for as long as it is kept: only
// this store writes a run of a shard this host owns, and every write to
// the run (update, conflict resolution, set, delete) drops the entry
// first. A shard's entries are dropped whenever its ownership is taken or
// renewed, so a run written by another host while it owned the shard is
// never answered from here.
type newRuns struct {
	mu    sync.Mutex
	runs  map[runKey]newRun
	order []runKey // insertion order, a ring of newRunsSize
	next  int
	now   func() time.Time

	hits, misses atomic.Int64
}

func newNewRuns() *newRuns {
	return &newRuns{runs: make(map[runKey]newRun), order: make([]runKey, newRunsSize), now: time.Now}
}

// put keeps the state of run k as its creation's snapshot wrote it.
func (c *newRuns) put(k runKey, s *p.InternalWorkflowSnapshot) {
	state := &p.InternalWorkflowMutableState{
		ActivityInfos:       s.ActivityInfos,
		TimerInfos:          s.TimerInfos,
		ChildExecutionInfos: s.ChildExecutionInfos,
		RequestCancelInfos:  s.RequestCancelInfos,
		SignalInfos:         s.SignalInfos,
		ChasmNodes:          s.ChasmNodes,
		ExecutionInfo:       blob(s.ExecutionInfoBlob),
		ExecutionState:      blob(s.ExecutionStateBlob),
		NextEventID:         s.NextEventID,
		DBRecordVersion:     s.DBRecordVersion,
	}
	for id := range s.SignalRequestedIDs {
		state.SignalRequestedIDs = append(state.SignalRequestedIDs, id)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.order[c.next]; old != (runKey{}) {
		delete(c.runs, old)
	}
	c.order[c.next] = k
	c.next = (c.next + 1) % len(c.order)
	c.runs[k] = newRun{state: state, at: c.now()}
}

// take returns and forgets the state kept for run k, if it is still
// fresh.
func (c *newRuns) take(k runKey) (*p.InternalWorkflowMutableState, bool) {
	c.mu.Lock()
	r, ok := c.runs[k]
	if ok {
		delete(c.runs, k)
	}
	c.mu.Unlock()
	if !ok || c.now().Sub(r.at) > newRunsTTL {
		c.misses.Add(1)
		return nil, false
	}
	c.hits.Add(1)
	return r.state, true
}

// drop forgets run k.
func (c *newRuns) drop(k runKey) {
	c.mu.Lock()
	delete(c.runs, k)
	c.mu.Unlock()
}

// dropShard forgets every run of shard.
func (c *newRuns) dropShard(shard int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.runs {
		if k.shard == shard {
			delete(c.runs, k)
		}
	}
}

// blob copies b's header; the bytes are shared, as persistence's readers
// only read them.
func blob(b *commonpb.DataBlob) *commonpb.DataBlob {
	if b == nil || len(b.Data) == 0 {
		return nil
	}
	return &commonpb.DataBlob{Data: b.Data, EncodingType: b.EncodingType}
}
