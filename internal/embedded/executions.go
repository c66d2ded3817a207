package embedded

import (
	"context"

	p "go.temporal.io/server/common/persistence"
	persistenceclient "go.temporal.io/server/common/persistence/client"
)

// persistenceProvider is Temporal's persistence factory provider with its
// execution and shard stores wrapped so that a new run's first read is
// answered from runs.
func persistenceProvider(runs *newRuns) persistenceclient.FactoryProviderFn {
	return func(params persistenceclient.NewFactoryParams) persistenceclient.Factory {
		params.DataStoreFactory = dataStores{DataStoreFactory: params.DataStoreFactory, runs: runs}
		return persistenceclient.FactoryProvider(params)
	}
}

// dataStores is a data store factory with its execution and shard
// stores wrapped.
type dataStores struct {
	p.DataStoreFactory
	runs *newRuns
}

func (f dataStores) NewExecutionStore() (p.ExecutionStore, error) {
	s, err := f.DataStoreFactory.NewExecutionStore()
	if err != nil {
		return nil, err
	}
	return executionStore{ExecutionStore: s, runs: f.runs}, nil
}

func (f dataStores) NewShardStore() (p.ShardStore, error) {
	s, err := f.DataStoreFactory.NewShardStore()
	if err != nil {
		return nil, err
	}
	return shardStore{ShardStore: s, runs: f.runs}, nil
}

// shardStore drops a shard's runs whenever its ownership is taken or
// its range renewed.
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
// runs until its first read, and drops it on any other write to the run.
type executionStore struct {
	p.ExecutionStore
	runs *newRuns
}

func (s executionStore) CreateWorkflowExecution(ctx context.Context, r *p.InternalCreateWorkflowExecutionRequest) (*p.InternalCreateWorkflowExecutionResponse, error) {
	resp, err := s.ExecutionStore.CreateWorkflowExecution(ctx, r)
	if err == nil {
		n := &r.NewWorkflowSnapshot
		s.runs.put(runKey{r.ShardID, n.NamespaceID, n.WorkflowID, n.RunID, r.ArchetypeID}, n)
	}
	return resp, err
}

func (s executionStore) GetWorkflowExecution(ctx context.Context, r *p.GetWorkflowExecutionRequest) (*p.InternalGetWorkflowExecutionResponse, error) {
	if state, ok := s.runs.take(runKey{r.ShardID, r.NamespaceID, r.WorkflowID, r.RunID, r.ArchetypeID}); ok {
		return &p.InternalGetWorkflowExecutionResponse{State: state, DBRecordVersion: state.DBRecordVersion}, nil
	}
	return s.ExecutionStore.GetWorkflowExecution(ctx, r)
}

func (s executionStore) UpdateWorkflowExecution(ctx context.Context, r *p.InternalUpdateWorkflowExecutionRequest) error {
	m := &r.UpdateWorkflowMutation
	s.runs.drop(runKey{r.ShardID, m.NamespaceID, m.WorkflowID, m.RunID, r.ArchetypeID})
	return s.ExecutionStore.UpdateWorkflowExecution(ctx, r)
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
