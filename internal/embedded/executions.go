package embedded

import (
	"context"

	enumsspb "go.temporal.io/server/api/enums/v1"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
	p "go.temporal.io/server/common/persistence"
	persistenceclient "go.temporal.io/server/common/persistence/client"
	"go.temporal.io/server/common/persistence/serialization"
	"go.temporal.io/server/service/history/tasks"
)

// persistenceProvider is Temporal's persistence factory provider with its
// execution and shard stores wrapped: a new run's first read is answered
// from what its creation wrote (newRuns), the workflow-task timeout
// timers it was created with are deleted when it closes
// (startTimeouts), and, when the main store's plugin is a
// history-in-transaction one (historyInTxPrefix), a run's new history is
// written in the run's own transaction.
func persistenceProvider() persistenceclient.FactoryProviderFn {
	runs, timeouts := newNewRuns(), newStartTimeouts()
	return func(params persistenceclient.NewFactoryParams) persistenceclient.Factory {
		params.DataStoreFactory = dataStores{DataStoreFactory: params.DataStoreFactory,
			runs: runs, timeouts: timeouts, ser: params.Serializer,
			historyInTx: historyInTx(params.Cfg), logger: params.Logger}
		return persistenceclient.FactoryProvider(params)
	}
}

// dataStores is a data store factory with its execution and shard
// stores wrapped.
type dataStores struct {
	p.DataStoreFactory
	runs        *newRuns
	timeouts    *startTimeouts
	ser         serialization.Serializer
	historyInTx bool
	logger      log.Logger
}

func (f dataStores) NewExecutionStore() (p.ExecutionStore, error) {
	s, err := f.DataStoreFactory.NewExecutionStore()
	if err != nil {
		return nil, err
	}
	return executionStore{ExecutionStore: s, runs: f.runs, timeouts: f.timeouts, ser: f.ser,
		historyInTx: f.historyInTx, logger: f.logger}, nil
}

func (f dataStores) NewShardStore() (p.ShardStore, error) {
	s, err := f.DataStoreFactory.NewShardStore()
	if err != nil {
		return nil, err
	}
	return shardStore{ShardStore: s, runs: f.runs}, nil
}

// shardStore drops a shard's runs whenever the shard's record is read
// to take ownership or written.
type shardStore struct {
	p.ShardStore
	runs *newRuns
}

func (s shardStore) GetOrCreateShard(ctx context.Context, r *p.InternalGetOrCreateShardRequest) (*p.InternalGetOrCreateShardResponse, error) {
	s.runs.dropShard(r.ShardID)
	return s.ShardStore.GetOrCreateShard(ctx, r)
}

func (s shardStore) UpdateShard(ctx context.Context, r *p.InternalUpdateShardRequest) error {
	s.runs.dropShard(r.ShardID)
	return s.ShardStore.UpdateShard(ctx, r)
}

// executionStore is an execution store that keeps each run it creates in
// runs until its first read, drops it on any other write to the run, and
// deletes a run's start timeouts when an update closes it. With
// historyInTx, a create's or update's new history goes to the run's
// transaction (historyInTxDB) rather than to commits of its own before it.
type executionStore struct {
	p.ExecutionStore
	runs        *newRuns
	timeouts    *startTimeouts
	ser         serialization.Serializer
	historyInTx bool
	logger      log.Logger
}

func (s executionStore) CreateWorkflowExecution(ctx context.Context, r *p.InternalCreateWorkflowExecutionRequest) (*p.InternalCreateWorkflowExecutionResponse, error) {
	n := &r.NewWorkflowSnapshot
	k := runKey{r.ShardID, n.NamespaceID, n.WorkflowID, n.RunID, r.ArchetypeID}
	// Kept before the write, so that no update of the run can come
	// between the write and this; nothing reads a run before its
	// creation returns its ID.
	s.runs.put(k, n)
	ctx, h := s.pendingHistory(ctx, r.NewWorkflowNewEvents)
	if h != nil {
		rr := *r
		rr.NewWorkflowNewEvents = nil
		r = &rr
	}
	resp, err := s.ExecutionStore.CreateWorkflowExecution(ctx, r)
	if err != nil {
		s.runs.drop(k)
		return resp, err
	}
	s.checkHistory(ctx, h)
	if keys := s.workflowTaskTimeouts(n.Tasks[tasks.CategoryTimer]); len(keys) > 0 {
		s.timeouts.put(k, keys)
	}
	return resp, nil
}

// workflowTaskTimeouts are the keys of timers' workflow-task timeouts.
func (s executionStore) workflowTaskTimeouts(timers []p.InternalHistoryTask) []tasks.Key {
	var keys []tasks.Key
	for _, t := range timers {
		task, err := s.ser.DeserializeTask(tasks.CategoryTimer, t.Blob)
		if err != nil {
			continue // not ours to judge: it stays, and fires as it would
		}
		if _, ok := task.(*tasks.WorkflowTaskTimeoutTask); ok {
			keys = append(keys, t.Key)
		}
	}
	return keys
}

func (s executionStore) GetWorkflowExecution(ctx context.Context, r *p.GetWorkflowExecutionRequest) (*p.InternalGetWorkflowExecutionResponse, error) {
	if state, ok := s.runs.take(runKey{r.ShardID, r.NamespaceID, r.WorkflowID, r.RunID, r.ArchetypeID}); ok {
		return &p.InternalGetWorkflowExecutionResponse{State: state, DBRecordVersion: state.DBRecordVersion}, nil
	}
	return s.ExecutionStore.GetWorkflowExecution(ctx, r)
}

func (s executionStore) UpdateWorkflowExecution(ctx context.Context, r *p.InternalUpdateWorkflowExecutionRequest) error {
	m := &r.UpdateWorkflowMutation
	k := runKey{r.ShardID, m.NamespaceID, m.WorkflowID, m.RunID, r.ArchetypeID}
	s.runs.drop(k)
	ctx, h := s.pendingHistory(ctx, r.UpdateWorkflowNewEvents, r.NewWorkflowNewEvents)
	if h != nil {
		rr := *r
		rr.UpdateWorkflowNewEvents, rr.NewWorkflowNewEvents = nil, nil
		r = &rr
	}
	if err := s.ExecutionStore.UpdateWorkflowExecution(ctx, r); err != nil {
		return err
	}
	s.checkHistory(ctx, h)
	if m.ExecutionState.GetState() == enumsspb.WORKFLOW_EXECUTION_STATE_COMPLETED {
		for _, key := range s.timeouts.take(k) {
			// A timer left behind fires as it would have.
			_ = s.ExecutionStore.CompleteHistoryTask(ctx, &p.CompleteHistoryTaskRequest{
				ShardID: r.ShardID, TaskCategory: tasks.CategoryTimer, TaskKey: key})
		}
	}
	return nil
}

// pendingHistory is ctx carrying batches, in order, to the run's
// transaction, or ctx and nil when there are none or the store writes
// history as Temporal ships it.
func (s executionStore) pendingHistory(ctx context.Context, batches ...[]*p.InternalAppendHistoryNodesRequest) (context.Context, *pendingHistory) {
	if !s.historyInTx {
		return ctx, nil
	}
	var all []*p.InternalAppendHistoryNodesRequest
	for _, b := range batches {
		all = append(all, b...)
	}
	if len(all) == 0 {
		return ctx, nil
	}
	h := &pendingHistory{appends: all}
	return withPendingHistory(ctx, h), h
}

// checkHistory makes sure the run's transaction, which succeeded, wrote
// h. It always has when the main store's database is a historyInTxDB; if
// it ever has not, the history is appended now rather than lost.
func (s executionStore) checkHistory(ctx context.Context, h *pendingHistory) {
	if h == nil || h.committed.Load() {
		return
	}
	s.logger.Error("hookd: a run's transaction did not write its history; appending it after the run")
	for _, r := range h.appends {
		if err := s.ExecutionStore.AppendHistoryNodes(ctx, r); err != nil {
			s.logger.Error("hookd: append history after the run", tag.Error(err))
		}
	}
}

func (s executionStore) ConflictResolveWorkflowExecution(ctx context.Context, r *p.InternalConflictResolveWorkflowExecutionRequest) error {
	// A conflict resolution rewrites runs this store may hold; forget the
	// shard's rather than follow each.
	s.runs.dropShard(r.ShardID)
	return s.ExecutionStore.ConflictResolveWorkflowExecution(ctx, r)
}

func (s executionStore) SetWorkflowExecution(ctx context.Context, r *p.InternalSetWorkflowExecutionRequest) error {
	n := &r.SetWorkflowSnapshot
	s.runs.drop(runKey{r.ShardID, n.NamespaceID, n.WorkflowID, n.RunID, r.ArchetypeID})
	return s.ExecutionStore.SetWorkflowExecution(ctx, r)
}

func (s executionStore) DeleteWorkflowExecution(ctx context.Context, r *p.DeleteWorkflowExecutionRequest) error {
	s.runs.drop(runKey{r.ShardID, r.NamespaceID, r.WorkflowID, r.RunID, r.ArchetypeID})
	return s.ExecutionStore.DeleteWorkflowExecution(ctx, r)
}
