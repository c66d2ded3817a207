package embedded

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/metrics"
	p "go.temporal.io/server/common/persistence"
	persistencesql "go.temporal.io/server/common/persistence/sql"
	"go.temporal.io/server/common/persistence/sql/sqlplugin"
	pgplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/postgresql"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	"go.temporal.io/server/common/resolver"
)

// historyInTxPrefix names the SQL plugins that write a run's new history
// in the transaction that writes the run. Temporal's SQL execution store
// appends each batch of new events (a start's, a workflow task's) in a
// commit of its own before the run's transaction: two commits more per
// delivery, each a WAL flush on durable PostgreSQL. Through these plugins
// the execution store (executionStore) hands the batches to the run's
// transaction instead, which inserts them just before it commits: the
// run and its events become durable together or not at all, where
// Temporal's order could leave events no run points to.
const historyInTxPrefix = "hookd-history-in-tx+"

func init() {
	for _, inner := range []string{sqliteplugin.PluginName, pgplugin.PluginNamePGX} {
		persistencesql.RegisterPlugin(historyInTxPrefix+inner, historyInTxPlugin{inner: inner})
	}
}

// withHistoryInTx is cfg named for the history-in-transaction plugin over
// its own plugin.
func withHistoryInTx(cfg *config.SQL) *config.SQL {
	c := *cfg
	c.PluginName = historyInTxPrefix + cfg.PluginName
	return &c
}

// historyInTx reports whether cfg's plugin writes new history in the run's
// transaction.
func historyInTx(cfg *config.Persistence) bool {
	if cfg == nil {
		return false
	}
	ds, ok := cfg.DataStores[cfg.DefaultStore]
	return ok && ds.SQL != nil && strings.HasPrefix(ds.SQL.PluginName, historyInTxPrefix)
}

// historyInTxPlugin opens its inner plugin's database and wraps it in
// historyInTxDB.
type historyInTxPlugin struct{ inner string }

func (pl historyInTxPlugin) CreateDB(kind sqlplugin.DbKind, cfg *config.SQL, r resolver.ServiceResolver, l log.Logger, mh metrics.Handler) (sqlplugin.GenericDB, error) {
	c := *cfg
	c.PluginName = pl.inner
	db, err := persistencesql.NewSQLDB(kind, &c, r, l, mh)
	if err != nil {
		return nil, err
	}
	full, ok := db.(fullDB)
	if !ok {
		_ = db.Close()
		return nil, fmt.Errorf("plugin %s: its database lacks Temporal's admin operations", pl.inner)
	}
	return historyInTxDB{full}, nil
}

// GetVisibilityQueryConverter is nil: the plugin serves only the main
// store, never visibility.
func (historyInTxPlugin) GetVisibilityQueryConverter() sqlplugin.VisibilityQueryConverter {
	return nil
}

// fullDB is what Temporal's SQL plugins' databases offer: the server's
// operations and the schema tools'.
type fullDB interface {
	sqlplugin.DB
	sqlplugin.AdminCRUD
	ExpectedVersion() string
	VerifyVersion() error
}

// historyInTxDB is a database whose transactions begun under a context
// carrying pending history (withPendingHistory) insert that history just
// before they commit.
type historyInTxDB struct{ fullDB }

func (db historyInTxDB) BeginTx(ctx context.Context) (sqlplugin.Tx, error) {
	tx, err := db.fullDB.BeginTx(ctx)
	if err != nil {
		return nil, err
	}
	if h, ok := ctx.Value(pendingHistoryKey{}).(*pendingHistory); ok && h.taken.CompareAndSwap(false, true) {
		return &historyTx{Tx: tx, ctx: ctx, h: h, db: db}, nil
	}
	return tx, nil
}

// historyTx is a transaction that inserts its pending history before it
// commits.
type historyTx struct {
	sqlplugin.Tx
	ctx context.Context
	h   *pendingHistory
	db  historyInTxDB
}

func (tx *historyTx) Commit() error {
	for _, r := range tx.h.appends {
		if err := insertHistory(tx.ctx, tx.Tx, r); err != nil {
			_ = tx.Tx.Rollback()
			if tx.db.IsDupEntryError(err) {
				return fmt.Errorf("append history node %d: row already exists: %w", r.Node.NodeID, err)
			}
			return fmt.Errorf("append history node %d: %w", r.Node.NodeID, err)
		}
	}
	if err := tx.Tx.Commit(); err != nil {
		return err
	}
	tx.h.committed.Store(true)
	return nil
}

// insertHistory writes one batch of events, and the branch's tree row
// when the batch is the branch's first, as Temporal's SQL store's
// AppendHistoryNodes does.
func insertHistory(ctx context.Context, tx sqlplugin.Tx, r *p.InternalAppendHistoryNodesRequest) error {
	treeID, err := primitives.ParseUUID(r.BranchInfo.GetTreeId())
	if err != nil {
		return err
	}
	branchID, err := primitives.ParseUUID(r.BranchInfo.GetBranchId())
	if err != nil {
		return err
	}
	// A new row each time: the PostgreSQL plugin negates TxnID in place.
	if _, err := tx.InsertIntoHistoryNode(ctx, &sqlplugin.HistoryNodeRow{
		TreeID:       treeID,
		BranchID:     branchID,
		NodeID:       r.Node.NodeID,
		PrevTxnID:    r.Node.PrevTransactionID,
		TxnID:        r.Node.TransactionID,
		Data:         r.Node.Events.Data,
		DataEncoding: r.Node.Events.EncodingType.String(),
		ShardID:      r.ShardID,
	}); err != nil {
		return err
	}
	if !r.IsNewBranch {
		return nil
	}
	_, err = tx.InsertIntoHistoryTree(ctx, &sqlplugin.HistoryTreeRow{
		ShardID:      r.ShardID,
		TreeID:       treeID,
		BranchID:     branchID,
		Data:         r.TreeInfo.Data,
		DataEncoding: r.TreeInfo.EncodingType.String(),
	})
	return err
}

// pendingHistory is the new history of one create or update of a run, for
// the first transaction begun under its context.
type pendingHistory struct {
	appends   []*p.InternalAppendHistoryNodesRequest
	taken     atomic.Bool // by a transaction
	committed atomic.Bool // with that transaction
}

type pendingHistoryKey struct{}

// withPendingHistory is ctx carrying h to the next transaction begun
// under it.
func withPendingHistory(ctx context.Context, h *pendingHistory) context.Context {
	return context.WithValue(ctx, pendingHistoryKey{}, h)
}
