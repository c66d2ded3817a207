package embedded

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	enumsspb "go.temporal.io/server/api/enums/v1"
	persistencespb "go.temporal.io/server/api/persistence/v1"
	"go.temporal.io/server/chasm"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/definition"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/metrics"
	p "go.temporal.io/server/common/persistence"
	"go.temporal.io/server/common/persistence/serialization"
	persistencesql "go.temporal.io/server/common/persistence/sql"
	"go.temporal.io/server/common/resolver"
	"go.temporal.io/server/service/history/tasks"
)

// runStores is Temporal's SQLite execution store for one shard, bare and
// wrapped with newRuns.
type runStores struct {
	raw, cached p.ExecutionStore
	shards      p.ShardStore
	runs        *newRuns
	ser         serialization.Serializer
	taskID      int64
	cfg         *config.SQL
}

// timer is task serialized as a timer due in 10 s, with the next task
// ID.
func (s *runStores) timer(t *testing.T, task tasks.Task) p.InternalHistoryTask {
	t.Helper()
	s.taskID++
	task.SetVisibilityTime(time.Now().Add(10 * time.Second).UTC().Truncate(time.Millisecond))
	task.SetTaskID(s.taskID)
	blob, err := s.ser.SerializeTask(task)
	require.NoError(t, err)
	return p.InternalHistoryTask{Key: task.GetKey(), Blob: blob}
}

// timers are the shard's timer tasks' keys.
func (s *runStores) timers(t *testing.T) []tasks.Key {
	t.Helper()
	resp, err := s.raw.GetHistoryTasks(context.Background(), &p.GetHistoryTasksRequest{
		ShardID: testShard, TaskCategory: tasks.CategoryTimer,
		InclusiveMinTaskKey: tasks.NewKey(time.Unix(0, 0), 0), ExclusiveMaxTaskKey: tasks.NewKey(time.Now().Add(time.Hour), 0),
		BatchSize: 100,
	})
	require.NoError(t, err)
	var keys []tasks.Key
	for _, task := range resp.Tasks {
		keys = append(keys, task.Key)
	}
	return keys
}

const testShard = 1

func newRunStores(t *testing.T) *runStores { return newRunStoresWith(t, false) }

// newRunStoresWith is newRunStores on the history-in-transaction plugin
// when inTx, its raw store too.
func newRunStoresWith(t *testing.T, inTx bool) *runStores {
	t.Helper()
	cfg := sqliteConfig(filepath.Join(t.TempDir(), "temporal.db"))
	require.NoError(t, prepare(cfg))
	if inTx {
		cfg = withHistoryInTx(cfg)
	}
	ser := serialization.NewSerializer()
	f := persistencesql.NewFactory(*cfg, resolver.NewNoopResolver(), "active", log.NewNoopLogger(), metrics.NoopMetricsHandler, ser)
	t.Cleanup(f.Close)
	s := &runStores{runs: newNewRuns(), ser: ser, cfg: cfg}
	w := dataStores{DataStoreFactory: f, runs: s.runs, timeouts: newStartTimeouts(), ser: ser,
		historyInTx: inTx, logger: log.NewNoopLogger()}
	var err error
	s.raw, err = f.NewExecutionStore()
	require.NoError(t, err)
	s.cached, err = w.NewExecutionStore()
	require.NoError(t, err)
	s.shards, err = w.NewShardStore()
	require.NoError(t, err)
	info, err := ser.ShardInfoToBlob(&persistencespb.ShardInfo{ShardId: testShard, RangeId: 1})
	require.NoError(t, err)
	_, err = s.shards.GetOrCreateShard(context.Background(), &p.InternalGetOrCreateShardRequest{
		ShardID:         testShard,
		CreateShardInfo: func() (int64, *commonpb.DataBlob, error) { return 1, info, nil },
	})
	require.NoError(t, err)
	return s
}

// create writes a new run with an activity, a timer, a CHASM node and
// two requested signals, through the wrapped store, and returns its key
// and snapshot.
func (s *runStores) create(t *testing.T) (runKey, p.InternalWorkflowSnapshot) {
	t.Helper()
	k, snap := s.snapshot(t)
	_, err := s.cached.CreateWorkflowExecution(context.Background(), &p.InternalCreateWorkflowExecutionRequest{
		ShardID: testShard, RangeID: 1, Mode: p.CreateWorkflowModeBrandNew,
		ArchetypeID: chasm.WorkflowArchetypeID, NewWorkflowSnapshot: snap,
	})
	require.NoError(t, err)
	return k, snap
}

// snapshot is a new run's snapshot, not written.
func (s *runStores) snapshot(t *testing.T) (runKey, p.InternalWorkflowSnapshot) {
	t.Helper()
	ns, wf, run := uuid.NewString(), "delivery-"+uuid.NewString(), uuid.NewString()
	info := &persistencespb.WorkflowExecutionInfo{NamespaceId: ns, WorkflowId: wf, WorkflowTypeName: "Delivery"}
	state := &persistencespb.WorkflowExecutionState{RunId: run, CreateRequestId: uuid.NewString(),
		State: enumsspb.WORKFLOW_EXECUTION_STATE_RUNNING, Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING}
	infoBlob, err := s.ser.WorkflowExecutionInfoToBlob(info)
	require.NoError(t, err)
	stateBlob, err := s.ser.WorkflowExecutionStateToBlob(state)
	require.NoError(t, err)
	activity, err := s.ser.ActivityInfoToBlob(&persistencespb.ActivityInfo{ScheduledEventId: 5, ActivityId: "attempt"})
	require.NoError(t, err)
	timer, err := s.ser.TimerInfoToBlob(&persistencespb.TimerInfo{TimerId: "wait", StartedEventId: 6})
	require.NoError(t, err)
	opaque := func(b string) *commonpb.DataBlob {
		return &commonpb.DataBlob{Data: []byte(b), EncodingType: enumspb.ENCODING_TYPE_PROTO3}
	}
	snap := p.InternalWorkflowSnapshot{
		NamespaceID: ns, WorkflowID: wf, RunID: run,
		ExecutionInfo: info, ExecutionInfoBlob: infoBlob,
		ExecutionState: state, ExecutionStateBlob: stateBlob,
		NextEventID: 7, DBRecordVersion: 1,
		ActivityInfos:      map[int64]*commonpb.DataBlob{5: activity},
		TimerInfos:         map[string]*commonpb.DataBlob{"wait": timer},
		ChasmNodes:         map[string]p.InternalChasmNode{"node": {Metadata: opaque("meta"), Data: opaque("data")}},
		SignalRequestedIDs: map[string]struct{}{"redrive-1": {}, "redrive-2": {}},
		Tasks: map[tasks.Category][]p.InternalHistoryTask{tasks.CategoryTimer: {
			s.timer(t, &tasks.WorkflowTaskTimeoutTask{WorkflowKey: definition.NewWorkflowKey(ns, wf, run), EventID: 3,
				TimeoutType: enumspb.TIMEOUT_TYPE_START_TO_CLOSE}),
			s.timer(t, &tasks.UserTimerTask{WorkflowKey: definition.NewWorkflowKey(ns, wf, run), EventID: 6}),
		}},
	}
	return runKey{testShard, ns, wf, run, chasm.WorkflowArchetypeID}, snap
}

func getRequest(k runKey) *p.GetWorkflowExecutionRequest {
	return &p.GetWorkflowExecutionRequest{ShardID: k.shard, NamespaceID: k.namespace, WorkflowID: k.workflow, RunID: k.run, ArchetypeID: k.archetype}
}

// read reads run k through store and returns its state in a canonical
// form, with the hits and misses it added to the wrapped store's count.
func (s *runStores) read(t *testing.T, store p.ExecutionStore, k runKey) (state map[string]string, hits, misses int64) {
	t.Helper()
	h, m := s.runs.hits.Load(), s.runs.misses.Load()
	resp, err := store.GetWorkflowExecution(context.Background(), getRequest(k))
	require.NoError(t, err)
	return canonical(resp), s.runs.hits.Load() - h, s.runs.misses.Load() - m
}

// canonical flattens a mutable-state read into comparable strings.
func canonical(r *p.InternalGetWorkflowExecutionResponse) map[string]string {
	out := map[string]string{}
	put := func(name string, b *commonpb.DataBlob) {
		if b != nil {
			out[name] = fmt.Sprintf("%v:%x", b.EncodingType, b.Data)
		}
	}
	st := r.State
	put("info", st.ExecutionInfo)
	put("state", st.ExecutionState)
	put("checksum", st.Checksum)
	out["next event"] = fmt.Sprint(st.NextEventID)
	out["record version"] = fmt.Sprint(st.DBRecordVersion, r.DBRecordVersion)
	for id, b := range st.ActivityInfos {
		put(fmt.Sprint("activity ", id), b)
	}
	for id, b := range st.TimerInfos {
		put("timer "+id, b)
	}
	for id, b := range st.ChildExecutionInfos {
		put(fmt.Sprint("child ", id), b)
	}
	for id, b := range st.RequestCancelInfos {
		put(fmt.Sprint("cancel ", id), b)
	}
	for id, b := range st.SignalInfos {
		put(fmt.Sprint("signal ", id), b)
	}
	for id, n := range st.ChasmNodes {
		put("chasm meta "+id, n.Metadata)
		put("chasm data "+id, n.Data)
	}
	for i, b := range st.BufferedEvents {
		put(fmt.Sprint("buffered ", i), b)
	}
	ids := append([]string(nil), st.SignalRequestedIDs...)
	sort.Strings(ids)
	out["signals requested"] = fmt.Sprint(ids)
	return out
}

// A new run's first read is answered from its creation, with what
// persistence answers; the next read goes to persistence.
func TestNewRunFirstReadIsPersistencesAnswer(t *testing.T) {
	s := newRunStores(t)
	k, _ := s.create(t)
	want, _, _ := s.read(t, s.raw, k)
	require.Contains(t, want, "activity 5")
	require.Contains(t, want, "chasm data node")
	require.Equal(t, "[redrive-1 redrive-2]", want["signals requested"])

	got, hits, _ := s.read(t, s.cached, k)
	require.Equal(t, int64(1), hits, "the first read is answered from the creation")
	require.Equal(t, want, got)

	got, hits, misses := s.read(t, s.cached, k)
	require.Equal(t, [2]int64{0, 1}, [2]int64{hits, misses}, "the second read goes to persistence")
	require.Equal(t, want, got)
}

// Any write to a run, or a change of its shard's ownership, sends its
// next read to persistence.
func TestNewRunDroppedOnWrites(t *testing.T) {
	s := newRunStores(t)
	ctx := context.Background()
	type write func(k runKey, n p.InternalWorkflowSnapshot)
	for _, c := range []struct {
		name  string
		write write
	}{
		{"update", func(k runKey, n p.InternalWorkflowSnapshot) {
			require.NoError(t, s.cached.UpdateWorkflowExecution(ctx, &p.InternalUpdateWorkflowExecutionRequest{
				ShardID: k.shard, RangeID: 1, Mode: p.UpdateWorkflowModeIgnoreCurrent, ArchetypeID: k.archetype,
				UpdateWorkflowMutation: p.InternalWorkflowMutation{
					NamespaceID: k.namespace, WorkflowID: k.workflow, RunID: k.run,
					ExecutionInfo: n.ExecutionInfo, ExecutionInfoBlob: n.ExecutionInfoBlob,
					ExecutionState: n.ExecutionState, ExecutionStateBlob: n.ExecutionStateBlob,
					NextEventID: n.NextEventID + 2, DBRecordVersion: n.DBRecordVersion + 1, Condition: n.NextEventID,
				},
			}))
			got, _, _ := s.read(t, s.cached, k)
			require.Equal(t, fmt.Sprint(n.NextEventID+2), got["next event"], "the update's state, from persistence")
		}},
		{"delete", func(k runKey, _ p.InternalWorkflowSnapshot) {
			require.NoError(t, s.cached.DeleteWorkflowExecution(ctx, &p.DeleteWorkflowExecutionRequest{
				ShardID: k.shard, NamespaceID: k.namespace, WorkflowID: k.workflow, RunID: k.run, ArchetypeID: k.archetype}))
		}},
		{"conflict resolution", func(k runKey, _ p.InternalWorkflowSnapshot) {
			// Refused (the request is empty); the shard's runs are dropped
			// before it is tried.
			_ = s.cached.ConflictResolveWorkflowExecution(ctx, &p.InternalConflictResolveWorkflowExecutionRequest{ShardID: k.shard})
		}},
		{"shard taken", func(k runKey, _ p.InternalWorkflowSnapshot) {
			_, err := s.shards.GetOrCreateShard(ctx, &p.InternalGetOrCreateShardRequest{ShardID: k.shard})
			require.NoError(t, err)
		}},
		{"shard renewed", func(k runKey, _ p.InternalWorkflowSnapshot) { // last: the range moves on
			info, err := s.ser.ShardInfoToBlob(&persistencespb.ShardInfo{ShardId: k.shard, RangeId: 2})
			require.NoError(t, err)
			require.NoError(t, s.shards.UpdateShard(ctx, &p.InternalUpdateShardRequest{ShardID: k.shard, RangeID: 2, PreviousRangeID: 1, ShardInfo: info}))
		}},
	} {
		k, snap := s.create(t)
		h := s.runs.hits.Load()
		c.write(k, snap)
		_, _ = s.cached.GetWorkflowExecution(ctx, getRequest(k))
		require.Equal(t, h, s.runs.hits.Load(), "%s: read from persistence", c.name)
	}
}

// A creation that fails leaves nothing to answer from.
func TestNewRunNotKeptWhenCreationFails(t *testing.T) {
	s := newRunStores(t)
	k, snap := s.snapshot(t)
	_, err := s.cached.CreateWorkflowExecution(context.Background(), &p.InternalCreateWorkflowExecutionRequest{
		ShardID: testShard, RangeID: 7, Mode: p.CreateWorkflowModeBrandNew, // not the shard's range
		ArchetypeID: k.archetype, NewWorkflowSnapshot: snap,
	})
	require.Error(t, err)
	_, err = s.cached.GetWorkflowExecution(context.Background(), getRequest(k))
	var notFound *serviceerror.NotFound
	require.ErrorAs(t, err, &notFound)
	require.Zero(t, s.runs.hits.Load())
}

// A run is kept for newRunsTTL and among the newRunsSize newest.
func TestNewRunsBounded(t *testing.T) {
	c := newNewRuns()
	now := time.Unix(1000, 0)
	c.now = func() time.Time { return now }
	key := func(i int) runKey { return runKey{shard: 1, run: fmt.Sprint(i)} }
	snap := &p.InternalWorkflowSnapshot{NextEventID: 3}
	for i := range newRunsSize + 1 {
		c.put(key(i), snap)
	}
	_, ok := c.take(key(0))
	require.False(t, ok, "the oldest beyond the size is gone")
	st, ok := c.take(key(1))
	require.True(t, ok)
	require.Equal(t, int64(3), st.NextEventID)
	require.Equal(t, newRunsSize-1, c.runs.len())

	now = now.Add(newRunsTTL + time.Millisecond)
	_, ok = c.take(key(2))
	require.False(t, ok, "past the TTL")
	c.dropShard(1)
	require.Zero(t, c.runs.len())
}

// close writes run k closed (completed) through the wrapped store.
func (s *runStores) close(t *testing.T, k runKey, n p.InternalWorkflowSnapshot, state enumsspb.WorkflowExecutionState) {
	t.Helper()
	st := &persistencespb.WorkflowExecutionState{RunId: k.run, CreateRequestId: n.ExecutionState.CreateRequestId,
		State: state, Status: enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED}
	if state == enumsspb.WORKFLOW_EXECUTION_STATE_RUNNING {
		st.Status = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	}
	stBlob, err := s.ser.WorkflowExecutionStateToBlob(st)
	require.NoError(t, err)
	require.NoError(t, s.cached.UpdateWorkflowExecution(context.Background(), &p.InternalUpdateWorkflowExecutionRequest{
		ShardID: k.shard, RangeID: 1, Mode: p.UpdateWorkflowModeIgnoreCurrent, ArchetypeID: k.archetype,
		UpdateWorkflowMutation: p.InternalWorkflowMutation{
			NamespaceID: k.namespace, WorkflowID: k.workflow, RunID: k.run,
			ExecutionInfo: n.ExecutionInfo, ExecutionInfoBlob: n.ExecutionInfoBlob,
			ExecutionState: st, ExecutionStateBlob: stBlob,
			NextEventID: n.NextEventID + 2, DBRecordVersion: n.DBRecordVersion + 1, Condition: n.NextEventID,
		},
	}))
}

// The workflow-task timeout timer a run was created with is deleted when
// an update closes the run, not before; its other timers stay.
func TestStartTimeoutDeletedAtClose(t *testing.T) {
	s := newRunStores(t)
	k, snap := s.create(t)
	timeout, user := snap.Tasks[tasks.CategoryTimer][0].Key, snap.Tasks[tasks.CategoryTimer][1].Key
	require.ElementsMatch(t, []tasks.Key{timeout, user}, s.timers(t))

	s.close(t, k, snap, enumsspb.WORKFLOW_EXECUTION_STATE_RUNNING)
	require.ElementsMatch(t, []tasks.Key{timeout, user}, s.timers(t), "an update that leaves the run open")

	snap.NextEventID, snap.DBRecordVersion = snap.NextEventID+2, snap.DBRecordVersion+1
	s.close(t, k, snap, enumsspb.WORKFLOW_EXECUTION_STATE_COMPLETED)
	require.Equal(t, []tasks.Key{user}, s.timers(t), "closed: its start's timeout timer is gone")
}
