package receiver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// ProcessFunc processes one inbox row after it was committed: the part of
// the business work that should not hold up the answer to hookd or that
// may fail and be retried. It may run more than once for one delivery (a
// crash after the work but before the row is marked completed), so it
// should be idempotent by d.ID.
type ProcessFunc func(ctx context.Context, d *Delivery) error

// WorkerOptions configures a Worker. The zero value is usable.
type WorkerOptions struct {
	// Lease is how long a claimed row belongs to one worker; a row still
	// processing after it (the worker crashed or hung) is claimed again.
	// The ProcessFunc's context expires with the lease. Default 1 minute.
	Lease time.Duration
	// MaxAttempts bounds the attempts per row; a row failing its last one
	// stays failed with no next attempt. Default 10.
	MaxAttempts int
	// Backoff gives the wait after failed attempt n (1-based). Default
	// ExponentialBackoff(time.Second, 10*time.Minute).
	Backoff func(attempt int) time.Duration
	// PollInterval is how long Run sleeps when nothing is due. Default 1s.
	PollInterval time.Duration
	// BatchSize bounds the rows one ProcessDue call handles. Default 100.
	BatchSize int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives processing failures; nil means slog.Default.
	Logger *slog.Logger
}

// Worker processes pending inbox rows with its own retries, independent of
// hookd's delivery retries. Several workers (goroutines or processes) may
// share one inbox: a row is claimed by one atomic UPDATE, and on PostgreSQL
// concurrent claimers skip each other's rows. Every state lives in the
// database, so a restarted worker resumes where the last one stopped.
//
// A row moves pending -> processing -> completed, or -> failed with the
// last error, the attempt count and the next attempt time; a failed row is
// processed again when its next attempt is due, until MaxAttempts.
type Worker struct {
	db      *sql.DB
	dialect Dialect
	process ProcessFunc
	opts    WorkerOptions
}

// NewWorker returns a Worker running process over the inbox in db.
func NewWorker(db *sql.DB, dialect Dialect, process ProcessFunc, opts WorkerOptions) (*Worker, error) {
	if err := dialect.validate(); err != nil {
		return nil, fmt.Errorf("new worker: %w", err)
	}
	if process == nil {
		return nil, errors.New("new worker: nil ProcessFunc")
	}
	if opts.Lease <= 0 {
		opts.Lease = time.Minute
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 10
	}
	if opts.Backoff == nil {
		opts.Backoff = ExponentialBackoff(time.Second, 10*time.Minute)
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 100
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Worker{db: db, dialect: dialect, process: process, opts: opts}, nil
}

// Run processes due rows until ctx is done, sleeping PollInterval whenever
// nothing is due. Database errors are logged and retried on the next poll.
// It returns nil once ctx is done.
func (w *Worker) Run(ctx context.Context) error {
	for {
		n, err := w.ProcessDue(ctx)
		if err != nil && ctx.Err() == nil {
			w.opts.Logger.ErrorContext(ctx, "inbox worker", "err", err)
		}
		if n > 0 && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(w.opts.PollInterval):
		}
	}
}

// ProcessDue claims and processes, one at a time, the rows due at the
// moment of the call (pending, failed with a due retry, or processing with
// an expired lease), up to BatchSize. It returns how many it processed; a
// failing ProcessFunc is recorded in the row, not returned.
func (w *Worker) ProcessDue(ctx context.Context) (int, error) {
	cutoff := w.opts.Now()
	n := 0
	for n < w.opts.BatchSize {
		c, err := w.claim(ctx, cutoff)
		if errors.Is(err, sql.ErrNoRows) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if err := w.handle(ctx, c); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// handle runs the ProcessFunc for a claimed row and records the result.
func (w *Worker) handle(ctx context.Context, c *claimed) error {
	if c.attempts > w.opts.MaxAttempts {
		// Its last attempt's lease expired: the process died during it.
		return w.finish(ctx, c, errors.New("lease expired on the last attempt"))
	}
	pctx, cancel := context.WithTimeout(ctx, w.opts.Lease)
	err := w.process(pctx, c.d)
	cancel()
	if err != nil {
		w.opts.Logger.WarnContext(ctx, "inbox row failed", "webhook_id", c.d.ID, "attempt", c.attempts, "err", err)
	}
	// Record the outcome even if ctx was cancelled meanwhile (shutdown):
	// otherwise finished work would wait for its lease and run again.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return w.finish(fctx, c, err)
}
