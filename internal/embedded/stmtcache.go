package embedded

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
)

// stmtCacheSize bounds the prepared statements one connection keeps. Temporal
// issues a few dozen distinct statements per file; the bound only matters for
// queries built per call (visibility list filters, IN lists of varying
// length), which then evict the least recently used.
const stmtCacheSize = 256

// stmtCacheStats counts cache use in this process, for tests and the
// benchmark: a hit executes an already prepared statement, a miss prepares
// (and keeps) one, a bypass prepares one for a single use because the
// cached one is busy with open rows.
var stmtCacheStats struct{ hits, misses, bypasses atomic.Int64 }

// stmtCacheDriver wraps a database/sql driver so that every connection keeps
// its statements prepared, keyed by query text. Temporal's SQLite plugin
// executes every statement through database/sql's DB.ExecContext and
// QueryContext, which the SQLite driver compiles afresh on each call, the
// visibility upsert (70 generated columns) dearest of all
// (docs/performance.md). The SQL, the connection and its
// pragmas are unchanged; only the compilation is reused.
type stmtCacheDriver struct {
	inner driver.Driver
	size  int
}

func (d *stmtCacheDriver) Open(name string) (driver.Conn, error) {
	c, err := d.inner.Open(name)
	if err != nil {
		return nil, err
	}
	return newCachingConn(c, d.size)
}

// stmtCacheConnector opens connections to one DSN through stmtCacheDriver,
// for sql.OpenDB.
type stmtCacheConnector struct {
	dsn    string
	driver *stmtCacheDriver
}

func (c stmtCacheConnector) Connect(context.Context) (driver.Conn, error) {
	return c.driver.Open(c.dsn)
}

func (c stmtCacheConnector) Driver() driver.Driver { return c.driver }

// innerConn is what the wrapped driver's connections must offer.
type innerConn interface {
	driver.Conn
	driver.ConnPrepareContext
	driver.ConnBeginTx
}

// innerStmt is what the wrapped driver's statements must offer.
type innerStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// cachingConn is one connection with its prepared statements. database/sql
// uses a connection from one goroutine at a time, so it needs no lock; but
// rows of one statement may still be open when the same query text runs
// again on the connection (within a transaction), so a statement with open
// rows is busy and that second call prepares its own.
type cachingConn struct {
	inner innerConn
	size  int
	bySQL map[string]*list.Element // of *cachedStmt
	lru   list.List                // front: most recently used
}

type cachedStmt struct {
	query string
	stmt  innerStmt
	busy  bool // rows open
}

var (
	_ driver.ExecerContext      = (*cachingConn)(nil)
	_ driver.QueryerContext     = (*cachingConn)(nil)
	_ driver.ConnPrepareContext = (*cachingConn)(nil)
	_ driver.ConnBeginTx        = (*cachingConn)(nil)
	_ driver.Pinger             = (*cachingConn)(nil)
	_ driver.SessionResetter    = (*cachingConn)(nil)
	_ driver.Validator          = (*cachingConn)(nil)
)

func newCachingConn(c driver.Conn, size int) (driver.Conn, error) {
	ic, ok := c.(innerConn)
	if !ok {
		_ = c.Close()
		return nil, fmt.Errorf("statement cache: connection %T lacks context methods", c)
	}
	return &cachingConn{inner: ic, size: size, bySQL: map[string]*list.Element{}}, nil
}

// acquire returns the statement for query, prepared once per connection,
// and whether it is cached (otherwise the caller closes it after use).
func (c *cachingConn) acquire(ctx context.Context, query string) (*cachedStmt, bool, error) {
	if e, ok := c.bySQL[query]; ok {
		cs := e.Value.(*cachedStmt)
		if !cs.busy {
			c.lru.MoveToFront(e)
			stmtCacheStats.hits.Add(1)
			return cs, true, nil
		}
		stmtCacheStats.bypasses.Add(1)
		s, err := c.prepareInner(ctx, query)
		if err != nil {
			return nil, false, err
		}
		return &cachedStmt{query: query, stmt: s}, false, nil
	}
	s, err := c.prepareInner(ctx, query)
	if err != nil {
		return nil, false, err
	}
	stmtCacheStats.misses.Add(1)
	cs := &cachedStmt{query: query, stmt: s}
	c.bySQL[query] = c.lru.PushFront(cs)
	c.evict()
	return cs, true, nil
}

// evict closes the least recently used statements beyond the cache's size,
// skipping busy ones (their rows close them later).
func (c *cachingConn) evict() {
	for e := c.lru.Back(); e != nil && c.lru.Len() > c.size; {
		prev := e.Prev()
		if cs := e.Value.(*cachedStmt); !cs.busy {
			c.lru.Remove(e)
			delete(c.bySQL, cs.query)
			_ = cs.stmt.Close()
		}
		e = prev
	}
}

func (c *cachingConn) prepareInner(ctx context.Context, query string) (innerStmt, error) {
	s, err := c.inner.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	is, ok := s.(innerStmt)
	if !ok {
		_ = s.Close()
		return nil, fmt.Errorf("statement cache: statement %T lacks context methods", s)
	}
	return is, nil
}

// ExecContext runs query on its prepared statement.
func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, cached, err := c.acquire(ctx, query)
	if err != nil {
		return nil, err
	}
	res, err := cs.stmt.ExecContext(ctx, args)
	if !cached {
		if cerr := cs.stmt.Close(); err == nil {
			err = cerr
		}
	}
	return res, err
}

// QueryContext runs query on its prepared statement; the statement is busy
// until the rows close.
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, cached, err := c.acquire(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := cs.stmt.QueryContext(ctx, args)
	if err != nil {
		if !cached {
			_ = cs.stmt.Close()
		}
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, conn: c, stmt: cs, cached: cached}, nil
}

// PrepareContext prepares a statement the caller owns and closes; it is not
// cached.
func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.inner.PrepareContext(ctx, query)
}

// Prepare is PrepareContext without a context.
func (c *cachingConn) Prepare(query string) (driver.Stmt, error) {
	return c.inner.PrepareContext(context.Background(), query)
}

// BeginTx starts a transaction on the connection; cached statements run in
// it like any other statement of the connection.
func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.inner.BeginTx(ctx, opts)
}

// Begin is BeginTx with default options.
func (c *cachingConn) Begin() (driver.Tx, error) {
	return c.inner.BeginTx(context.Background(), driver.TxOptions{})
}

// Close closes every cached statement, then the connection: SQLite does not
// release a connection whose statements are still prepared.
func (c *cachingConn) Close() error {
	var errs []error
	for e := c.lru.Front(); e != nil; e = e.Next() {
		errs = append(errs, e.Value.(*cachedStmt).stmt.Close())
	}
	c.lru.Init()
	clear(c.bySQL)
	errs = append(errs, c.inner.Close())
	return errors.Join(errs...)
}

// Ping passes through to the connection.
func (c *cachingConn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// ResetSession passes through to the connection.
func (c *cachingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// IsValid passes through to the connection.
func (c *cachingConn) IsValid() bool {
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// cachedRows releases its statement when closed: back to the cache, or
// closed if it was prepared for this one query.
type cachedRows struct {
	driver.Rows
	conn   *cachingConn
	stmt   *cachedStmt
	cached bool
	closed bool
}

func (r *cachedRows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.Rows.Close()
	if !r.cached {
		return errors.Join(err, r.stmt.stmt.Close())
	}
	r.stmt.busy = false
	r.conn.evict()
	return err
}

// The column-type methods pass through when the driver's rows have them.

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}
