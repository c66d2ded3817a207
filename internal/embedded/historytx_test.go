package embedded

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	persistencespb "go.temporal.io/server/api/persistence/v1"
	"go.temporal.io/server/chasm"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/metrics"
	p "go.temporal.io/server/common/persistence"
	persistencesql "go.temporal.io/server/common/persistence/sql"
	"go.temporal.io/server/common/persistence/sql/sqlplugin"
	"go.temporal.io/server/common/resolver"
)

// branch is one run's history branch in a runStores test.
type branch struct {
	info  *persistencespb.HistoryBranch
	token []byte
}

func (s *runStores) newBranch(t *testing.T) branch {
	t.Helper()
	info := &persistencespb.HistoryBranch{TreeId: uuid.NewString(), BranchId: uuid.NewString()}
	blob, err := s.ser.HistoryBranchToBlob(info)
	require.NoError(t, err)
	return branch{info: info, token: blob.Data}
}

// batch is a batch of events from node, the branch's first when new.
func (b branch) batch(node, txn, prev int64, isNew bool) *p.InternalAppendHistoryNodesRequest {
	return &p.InternalAppendHistoryNodesRequest{
		BranchToken: b.token, IsNewBranch: isNew, BranchInfo: b.info,
		TreeInfo: &commonpb.DataBlob{Data: []byte("tree " + b.info.TreeId), EncodingType: enumspb.ENCODING_TYPE_PROTO3},
		Node: p.InternalHistoryNode{NodeID: node, TransactionID: txn, PrevTransactionID: prev,
			Events: &commonpb.DataBlob{Data: []byte{byte(node)}, EncodingType: enumspb.ENCODING_TYPE_PROTO3}},
		ShardID: testShard,
	}
}

// nodes are the node IDs persistence holds for b.
func (s *runStores) nodes(t *testing.T, b branch) []int64 {
	t.Helper()
	resp, err := s.raw.ReadHistoryBranch(context.Background(), &p.InternalReadHistoryBranchRequest{
		BranchToken: b.token, BranchID: b.info.BranchId, MinNodeID: 1, MaxNodeID: 100, PageSize: 100, ShardID: testShard})
	require.NoError(t, err)
	var ids []int64
	for _, n := range resp.Nodes {
		ids = append(ids, n.NodeID)
	}
	return ids
}

// hasTree reports whether persistence holds b's tree row.
func (s *runStores) hasTree(t *testing.T, b branch) bool {
	t.Helper()
	resp, err := s.raw.GetAllHistoryTreeBranches(context.Background(), &p.GetAllHistoryTreeBranchesRequest{PageSize: 1000})
	require.NoError(t, err)
	for _, d := range resp.Branches {
		if d.TreeID == b.info.TreeId && d.BranchID == b.info.BranchId {
			return true
		}
	}
	return false
}

// update advances run k by two events, with batch as its new history,
// on condition cond (the run's next event ID for it to apply).
func (s *runStores) update(k runKey, n p.InternalWorkflowSnapshot, cond int64, batch *p.InternalAppendHistoryNodesRequest) error {
	return s.cached.UpdateWorkflowExecution(context.Background(), &p.InternalUpdateWorkflowExecutionRequest{
		ShardID: k.shard, RangeID: 1, Mode: p.UpdateWorkflowModeIgnoreCurrent, ArchetypeID: k.archetype,
		UpdateWorkflowMutation: p.InternalWorkflowMutation{
			NamespaceID: k.namespace, WorkflowID: k.workflow, RunID: k.run,
			ExecutionInfo: n.ExecutionInfo, ExecutionInfoBlob: n.ExecutionInfoBlob,
			ExecutionState: n.ExecutionState, ExecutionStateBlob: n.ExecutionStateBlob,
			NextEventID: n.NextEventID + 2, DBRecordVersion: n.DBRecordVersion + 1, Condition: cond,
		},
		UpdateWorkflowNewEvents: []*p.InternalAppendHistoryNodesRequest{batch},
	})
}

// A run's new history is written with the run: a creation's first batch
// and its branch's tree, an update's batch; an update refused on its
// condition leaves no history behind, where Temporal's store as shipped
// has already written it.
func TestHistoryWrittenInTheRunsTransaction(t *testing.T) {
	for _, inTx := range []bool{true, false} {
		s := newRunStoresWith(t, inTx)
		b := s.newBranch(t)
		k, snap := s.snapshot(t)
		_, err := s.cached.CreateWorkflowExecution(context.Background(), &p.InternalCreateWorkflowExecutionRequest{
			ShardID: testShard, RangeID: 1, Mode: p.CreateWorkflowModeBrandNew, ArchetypeID: chasm.WorkflowArchetypeID,
			NewWorkflowSnapshot:  snap,
			NewWorkflowNewEvents: []*p.InternalAppendHistoryNodesRequest{b.batch(1, 1, 0, true)},
		})
		require.NoError(t, err)
		require.Equal(t, []int64{1}, s.nodes(t, b), "in tx %v", inTx)
		require.True(t, s.hasTree(t, b), "in tx %v", inTx)

		require.NoError(t, s.update(k, snap, snap.NextEventID, b.batch(7, 2, 1, false)))
		require.Equal(t, []int64{1, 7}, s.nodes(t, b), "in tx %v", inTx)

		var cond *p.WorkflowConditionFailedError
		err = s.update(k, snap, snap.NextEventID, b.batch(9, 3, 2, false)) // stale: next event is now 9
		require.ErrorAs(t, err, &cond, "in tx %v", inTx)
		if inTx {
			require.Equal(t, []int64{1, 7}, s.nodes(t, b), "the refused update wrote no history")
		} else {
			require.Equal(t, []int64{1, 7, 9}, s.nodes(t, b), "as shipped, history goes first")
		}
	}
}

// A creation refused inside its transaction writes neither the run nor
// its history.
func TestHistoryNotWrittenWhenTheRunIsNot(t *testing.T) {
	s := newRunStoresWith(t, true)
	b := s.newBranch(t)
	_, snap := s.snapshot(t)
	_, err := s.cached.CreateWorkflowExecution(context.Background(), &p.InternalCreateWorkflowExecutionRequest{
		ShardID: testShard, RangeID: 7, Mode: p.CreateWorkflowModeBrandNew, // not the shard's range
		ArchetypeID: chasm.WorkflowArchetypeID, NewWorkflowSnapshot: snap,
		NewWorkflowNewEvents: []*p.InternalAppendHistoryNodesRequest{b.batch(1, 1, 0, true)},
	})
	var lost *p.ShardOwnershipLostError
	require.ErrorAs(t, err, &lost)
	require.Empty(t, s.nodes(t, b))
	require.False(t, s.hasTree(t, b))
}

// Only the first transaction begun under a context carrying history takes
// it; it inserts the history when it commits, and none when it rolls back.
func TestPendingHistoryTakenByOneTransaction(t *testing.T) {
	s := newRunStoresWith(t, true)
	db, err := persistencesql.NewSQLDB(sqlplugin.DbKindMain, s.cfg, resolver.NewNoopResolver(), log.NewNoopLogger(), metrics.NoopMetricsHandler)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	b := s.newBranch(t)
	for _, commit := range []bool{false, true} {
		h := &pendingHistory{appends: []*p.InternalAppendHistoryNodesRequest{b.batch(1, 1, 0, true), b.batch(3, 2, 1, false)}}
		ctx := withPendingHistory(context.Background(), h)
		tx, err := db.BeginTx(ctx)
		require.NoError(t, err)
		require.IsType(t, &historyTx{}, tx)
		if commit {
			require.NoError(t, tx.Commit())
			require.Equal(t, []int64{1, 3}, s.nodes(t, b))
			require.True(t, s.hasTree(t, b))
		} else {
			require.NoError(t, tx.Rollback())
			require.Empty(t, s.nodes(t, b))
		}
		require.Equal(t, commit, h.committed.Load())
		// SQLite's one connection: the next transaction after this one.
		other, err := db.BeginTx(ctx)
		require.NoError(t, err)
		require.NotEqual(t, fmt.Sprintf("%T", &historyTx{}), fmt.Sprintf("%T", other), "taken once")
		require.NoError(t, other.Rollback())
	}
	plain, err := db.BeginTx(context.Background())
	require.NoError(t, err)
	require.NoError(t, plain.Rollback())
	require.False(t, historyInTx(nil))
}
