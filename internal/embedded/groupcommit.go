package embedded

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
)

// commitGroup lets concurrent statements on one SQLite connection share a
// commit. Temporal's visibility store writes each record (a delivery's
// start and close) as a statement of its own, so each is a commit of its
// own: a WAL frame for every page of the table and of each of its indexes
// that the row touched, written with two system calls a frame. Records
// written at once touch many of the same pages (every index's newest
// leaf), and one commit writes each page once.
//
// A statement that finds no other waiting runs and commits on its own,
// with no wait added. One that finds others waiting opens a transaction
// (or joins the one open), runs in it, and leaves the commit to the last
// of them: the statement that finds no one waiting after its own, or
// that fills the batch (maxBatch), commits for the whole batch. Every
// statement of a batch returns only after that commit, so what a caller
// was told is written is durable; if any statement of a batch fails, or
// the commit does, the batch is rolled back and every statement in it
// returns the error, so that the caller (Temporal's visibility task)
// writes it again.
//
// database/sql hands each of its connections (groupConn) to one goroutine
// at a time; they all share the group's one SQLite connection, each call
// under mu. An explicit transaction (BeginTx) has the connection to
// itself from its BEGIN to its end: it waits for the open batch, and the
// other connections' statements wait for it.
type commitGroup struct {
	mu     sync.Mutex
	ended  *sync.Cond // signalled when a batch or a transaction ends
	conn   groupInner
	queued atomic.Int64 // statements waiting for mu
	open   *commitBatch // the batch whose BEGIN ran and whose commit has not
	tx     *groupConn   // the connection whose transaction is open
}

// maxBatch bounds the writes that share one commit, and so how long the
// first of them waits for it while others keep arriving: as many as
// database/sql lets wait at once. A batch closed at 16 while others
// waited cost more CPU per write than committing each on its own
// (docs/performance.md).
const maxBatch = groupConns

// groupInner is what the shared connection must offer (cachingConn does).
type groupInner interface {
	driver.Conn
	driver.ExecerContext
	driver.QueryerContext
	driver.ConnBeginTx
}

// commitBatch is the statements that share one commit; done closes when
// it is committed or rolled back, err saying which.
type commitBatch struct {
	done       chan struct{}
	err        error
	statements int
}

// groupCommitStats counts, in this process, the statements that
// committed on their own, the commits of batches and the statements in
// them.
var groupCommitStats struct{ alone, batches, statements atomic.Int64 }

// SharedCommits counts the writes to SQLite files whose commits are
// shared (the visibility file's), in this process.
type SharedCommits struct {
	// Alone is the writes that committed on their own, finding no other
	// waiting.
	Alone int64
	// Batches is the commits that writes shared, and Batched the writes
	// in them.
	Batches, Batched int64
}

// SharedCommitCounts returns the counts so far.
func SharedCommitCounts() SharedCommits {
	return SharedCommits{Alone: groupCommitStats.alone.Load(), Batches: groupCommitStats.batches.Load(), Batched: groupCommitStats.statements.Load()}
}

// Since is what was counted between before and c.
func (c SharedCommits) Since(before SharedCommits) SharedCommits {
	return SharedCommits{Alone: c.Alone - before.Alone, Batches: c.Batches - before.Batches, Batched: c.Batched - before.Batched}
}

// PerCommit is the writes per commit, those alone included (0 if none).
func (c SharedCommits) PerCommit() float64 {
	if c.Alone+c.Batches == 0 {
		return 0
	}
	return float64(c.Alone+c.Batched) / float64(c.Alone+c.Batches)
}

func newCommitGroup(c driver.Conn) (*commitGroup, error) {
	ic, ok := c.(groupInner)
	if !ok {
		_ = c.Close()
		return nil, fmt.Errorf("group commit: connection %T lacks context methods", c)
	}
	g := &commitGroup{conn: ic}
	g.ended = sync.NewCond(&g.mu)
	return g, nil
}

// exec runs one statement for c: in c's transaction if it has one open,
// otherwise alone or in a batch (see commitGroup).
func (g *commitGroup) exec(ctx context.Context, c *groupConn, query string, args []driver.NamedValue) (driver.Result, error) {
	g.queued.Add(1)
	g.mu.Lock()
	g.queued.Add(-1)
	if g.tx == c {
		defer g.mu.Unlock()
		return g.conn.ExecContext(ctx, query, args)
	}
	g.waitForTx(c)
	b := g.open
	if b == nil {
		if g.queued.Load() == 0 {
			defer g.mu.Unlock()
			res, err := g.conn.ExecContext(ctx, query, args)
			if err == nil {
				groupCommitStats.alone.Add(1)
			}
			return res, err
		}
		if _, err := g.conn.ExecContext(ctx, "BEGIN", nil); err != nil {
			g.mu.Unlock()
			return nil, fmt.Errorf("group commit: begin: %w", err)
		}
		b = &commitBatch{done: make(chan struct{})}
		g.open = b
	}
	res, err := g.conn.ExecContext(ctx, query, args)
	if err != nil {
		g.end(b, err)
		g.mu.Unlock()
		return nil, err
	}
	b.statements++
	if g.queued.Load() == 0 || b.statements >= maxBatch {
		g.end(b, nil)
		g.mu.Unlock()
	} else {
		g.mu.Unlock()
		<-b.done
	}
	if b.err != nil {
		return nil, b.err
	}
	return res, nil
}

// end commits the open batch b, or rolls it back with failed, and lets
// its statements return. g.mu is held.
func (g *commitGroup) end(b *commitBatch, failed error) {
	// The commit is the batch's, not the caller's: its context's end must
	// not roll back the others.
	ctx := context.Background()
	if failed == nil {
		if _, err := g.conn.ExecContext(ctx, "COMMIT", nil); err != nil {
			failed = fmt.Errorf("group commit: commit: %w", err)
		} else {
			groupCommitStats.batches.Add(1)
			groupCommitStats.statements.Add(int64(b.statements))
		}
	} else {
		failed = fmt.Errorf("group commit: a statement of the batch failed, so none was written: %w", failed)
	}
	if failed != nil {
		// A failed COMMIT may have ended the transaction already; a
		// ROLLBACK then has none to end, which is no news.
		_, _ = g.conn.ExecContext(ctx, "ROLLBACK", nil)
		b.err = failed
	}
	g.open = nil
	close(b.done)
	g.ended.Broadcast()
}

// waitForTx waits until no connection but c has a transaction open.
// g.mu is held.
func (g *commitGroup) waitForTx(c *groupConn) {
	for g.tx != nil && g.tx != c {
		g.ended.Wait()
	}
}

// query runs a read for c on the shared connection; its rows take g.mu
// at each step. A read while a batch or a transaction is open sees its
// rows.
func (g *commitGroup) query(ctx context.Context, c *groupConn, query string, args []driver.NamedValue) (driver.Rows, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.waitForTx(c)
	rows, err := g.conn.QueryContext(ctx, query, args)
	if err != nil {
		return nil, err
	}
	return &groupRows{rows: rows, mu: &g.mu}, nil
}

// groupConnector hands database/sql as many connections as it asks for,
// all on the group's one SQLite connection.
type groupConnector struct {
	g      *commitGroup
	driver driver.Driver
}

func (c groupConnector) Connect(context.Context) (driver.Conn, error) {
	return &groupConn{g: c.g}, nil
}

func (c groupConnector) Driver() driver.Driver { return c.driver }

// Close closes the shared connection, when database/sql closes its DB.
func (c groupConnector) Close() error {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	return c.g.conn.Close()
}

// groupConn is one of database/sql's connections to a commitGroup.
type groupConn struct {
	g *commitGroup
}

var (
	_ driver.ExecerContext      = (*groupConn)(nil)
	_ driver.QueryerContext     = (*groupConn)(nil)
	_ driver.ConnPrepareContext = (*groupConn)(nil)
	_ driver.ConnBeginTx        = (*groupConn)(nil)
	_ driver.SessionResetter    = (*groupConn)(nil)
	_ driver.Validator          = (*groupConn)(nil)
)

// ExecContext runs a write in the group, or in the connection's
// transaction.
func (c *groupConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.g.exec(ctx, c, query, args)
}

// QueryContext runs a read in the group, or in the connection's
// transaction.
func (c *groupConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.g.query(ctx, c, query, args)
}

// PrepareContext returns a statement that runs query through the
// connection each time, as ExecContext and QueryContext do.
func (c *groupConn) PrepareContext(_ context.Context, query string) (driver.Stmt, error) {
	return &groupStmt{conn: c, query: query}, nil
}

// Prepare is PrepareContext without a context.
func (c *groupConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// BeginTx waits for the open batch to commit and any other transaction
// to end, then has the shared connection to itself until it ends.
func (c *groupConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	g := c.g
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.open != nil || g.tx != nil {
		g.ended.Wait()
	}
	tx, err := g.conn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	g.tx = c
	return &groupTx{tx: tx, conn: c}, nil
}

// Begin is BeginTx with default options.
func (c *groupConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// Close leaves the shared connection open: it is the group's.
func (c *groupConn) Close() error { return nil }

// ResetSession has nothing to reset: the connection holds no state of
// its own between uses.
func (c *groupConn) ResetSession(context.Context) error { return nil }

// IsValid: a connection to the group stays usable.
func (c *groupConn) IsValid() bool { return true }

var errTxEnded = errors.New("group commit: the transaction has ended")

// groupTx is an explicit transaction on the shared connection; it lets
// the other connections go when it ends.
type groupTx struct {
	tx   driver.Tx
	conn *groupConn
}

func (t *groupTx) Commit() error   { return t.end(driver.Tx.Commit) }
func (t *groupTx) Rollback() error { return t.end(driver.Tx.Rollback) }

// end commits or rolls back the transaction. A COMMIT that fails can
// leave SQLite's transaction open; it is rolled back then, so that the
// next statement does not run inside it.
func (t *groupTx) end(how func(driver.Tx) error) error {
	g := t.conn.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tx != t.conn {
		return errTxEnded
	}
	err := how(t.tx)
	if err != nil {
		_, _ = g.conn.ExecContext(context.Background(), "ROLLBACK", nil)
	}
	g.tx = nil
	g.ended.Broadcast()
	return err
}

// groupStmt is a prepared statement on a groupConn: each use runs its
// query through the connection.
type groupStmt struct {
	conn  *groupConn
	query string
}

func (s *groupStmt) Close() error  { return nil }
func (s *groupStmt) NumInput() int { return -1 }

func (s *groupStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *groupStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func (s *groupStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.conn.ExecContext(ctx, s.query, args)
}

func (s *groupStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.conn.QueryContext(ctx, s.query, args)
}

// named numbers positional arguments as database/sql does.
func named(args []driver.Value) []driver.NamedValue {
	nv := make([]driver.NamedValue, len(args))
	for i, v := range args {
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return nv
}

// groupRows reads rows of the shared connection, taking the group's lock
// for each call, since other statements run on the connection between
// them.
type groupRows struct {
	rows driver.Rows
	mu   *sync.Mutex
}

func (r *groupRows) Columns() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rows.Columns()
}

func (r *groupRows) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rows.Close()
}

func (r *groupRows) Next(dest []driver.Value) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rows.Next(dest)
}

// The column-type methods pass through when the rows have them.

func (r *groupRows) ColumnTypeDatabaseTypeName(i int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *groupRows) ColumnTypeScanType(i int) reflect.Type {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}
