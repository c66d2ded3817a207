package embedded

import (
	"sync/atomic"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	p "go.temporal.io/server/common/persistence"
)

// newRunsSize bounds the runs kept; newRunsTTL is how long one is kept.
// A delivery's first read of its run comes milliseconds after the start
// (its eager workflow task's completion, or the start's visibility task);
// a run started with a delay is read when its timer fires, past the TTL,
// from persistence.
const (
	newRunsSize = 1024
	newRunsTTL  = 2 * time.Second
)

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
// first. A shard's entries are dropped whenever the shard's record is
// written (its ownership taken or renewed, its progress saved), so a run
// written by another host while it owned the shard is never answered
// from here.
type newRuns struct {
	runs *runMap[newRun]
	now  func() time.Time

	hits, misses atomic.Int64
}

func newNewRuns() *newRuns {
	return &newRuns{runs: newRunMap[newRun](newRunsSize), now: time.Now}
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
	c.runs.put(k, newRun{state: state, at: c.now()})
}

// take returns and forgets the state kept for run k, if it is still
// fresh.
func (c *newRuns) take(k runKey) (*p.InternalWorkflowMutableState, bool) {
	r, ok := c.runs.take(k)
	if !ok || c.now().Sub(r.at) > newRunsTTL {
		c.misses.Add(1)
		return nil, false
	}
	c.hits.Add(1)
	return r.state, true
}

// drop forgets run k.
func (c *newRuns) drop(k runKey) { c.runs.take(k) }

// dropShard forgets every run of shard.
func (c *newRuns) dropShard(shard int32) { c.runs.dropShard(shard) }

// blob copies b's header; the bytes are shared, as persistence's readers
// only read them.
func blob(b *commonpb.DataBlob) *commonpb.DataBlob {
	if b == nil || len(b.Data) == 0 {
		return nil
	}
	return &commonpb.DataBlob{Data: b.Data, EncodingType: b.EncodingType}
}
