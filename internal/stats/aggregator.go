package stats

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// Store is what the aggregator uses of the endpoint store.
type Store = store.Stats

// Defaults of Config.
const (
	DefaultFlushEvery       = 5 * time.Second
	DefaultAlertBelow       = 0.5
	DefaultAlertMinAttempts = 10
	// Keep is how long per-minute rows are kept.
	Keep = 48 * time.Hour
)

// Config configures an Aggregator. Store is required.
type Config struct {
	Store  Store
	Logger *slog.Logger
	// FlushEvery is how often observations are written; zero means
	// DefaultFlushEvery.
	FlushEvery time.Duration
	// AlertBelow is the success rate over the last hour under which an
	// endpoint is unhealthy, once it had AlertMinAttempts attempts in that
	// hour; zero means the defaults.
	AlertBelow       float64
	AlertMinAttempts int64
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Aggregator buffers attempt observations and flushes them to the store.
// It is safe for concurrent use.
type Aggregator struct {
	cfg Config
	log *slog.Logger

	mu    sync.Mutex // guards cells
	cells map[cellKey]*cell

	flushMu   sync.Mutex // serialises flushes; guards what follows
	lastPrune time.Time
}

type cellKey struct {
	endpointID string
	minute     int64 // Unix seconds of the minute's start
}

type cell struct {
	attempts, successes, retryable int64
	latency                        [store.LatencyBuckets]int64
}

// Validate checks the field New needs: Store.
func (cfg Config) Validate() error {
	if cfg.Store == nil {
		return errors.New("stats: missing store")
	}
	return nil
}

// New validates cfg and returns an aggregator; its flusher is Run.
func New(cfg Config) (*Aggregator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.FlushEvery = cmp.Or(cfg.FlushEvery, DefaultFlushEvery)
	cfg.AlertBelow = cmp.Or(cfg.AlertBelow, DefaultAlertBelow)
	cfg.AlertMinAttempts = cmp.Or(cfg.AlertMinAttempts, DefaultAlertMinAttempts)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	a := &Aggregator{
		cfg:   cfg,
		log:   cmp.Or(cfg.Logger, slog.Default()),
		cells: map[cellKey]*cell{},
	}
	return a, nil
}

// Observe counts one attempt made to an endpoint. It only updates memory;
// it is activities.Config.Observe.
func (a *Aggregator) Observe(endpointID string, at delivery.Attempt) {
	if at.Outcome == delivery.OutcomeDeferred {
		return
	}
	start := at.Start
	if start.IsZero() {
		start = a.cfg.Now()
	}
	k := cellKey{endpointID, start.Truncate(time.Minute).Unix()}
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.cells[k]
	if c == nil {
		c = &cell{}
		a.cells[k] = c
	}
	c.attempts++
	switch at.Outcome {
	case delivery.OutcomeSuccess:
		c.successes++
	case delivery.OutcomeRetryable:
		c.retryable++
	}
	c.latency[bucketOf(at.Duration)]++
}

// Figures returns the endpoint's figures over the last hour and day, as
// flushed by every process.
func (a *Aggregator) Figures(ctx context.Context, endpointID string) (Figures, error) {
	now := a.cfg.Now()
	hour, err := a.cfg.Store.StatsSince(ctx, endpointID, now.Add(-time.Hour))
	if err != nil {
		return Figures{}, err
	}
	day, err := a.cfg.Store.StatsSince(ctx, endpointID, now.Add(-24*time.Hour))
	if err != nil {
		return Figures{}, err
	}
	return Figures{LastHour: windowOf(hour), LastDay: windowOf(day)}, nil
}

// finalFlush bounds the flush Run makes as it stops.
const finalFlush = 5 * time.Second

// Run flushes every FlushEvery until ctx is done, then flushes what is
// left (within finalFlush) and returns: start it in the process's
// lifecycle group, and stop the group after the worker so the last
// attempts are counted.
func (a *Aggregator) Run(ctx context.Context) {
	t := time.NewTicker(a.cfg.FlushEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalFlush)
			defer cancel()
			if err := a.Flush(fctx); err != nil {
				a.log.Warn("flush attempt stats at stop", "error", err)
			}
			return
		case <-t.C:
			fctx, cancel := context.WithTimeout(ctx, 4*a.cfg.FlushEvery)
			if err := a.Flush(fctx); err != nil {
				a.log.Warn("flush attempt stats", "error", err)
			}
			cancel()
		}
	}
}

// Flush writes what was observed since the last flush, one row update per
// endpoint and minute in one transaction, then evaluates the success-rate
// alert of the endpoints written. What fails to be written is kept for
// the next flush.
func (a *Aggregator) Flush(ctx context.Context) error {
	a.flushMu.Lock()
	defer a.flushMu.Unlock()
	a.mu.Lock()
	cells := a.cells
	a.cells = map[cellKey]*cell{}
	a.mu.Unlock()

	deltas := toDeltas(cells)
	if err := a.cfg.Store.AddStats(ctx, deltas); err != nil {
		a.restore(cells)
		return err
	}
	now := a.cfg.Now()
	a.prune(ctx, now)
	var endpoints []string
	for _, d := range deltas {
		endpoints = append(endpoints, d.EndpointID)
	}
	a.evaluate(ctx, slices.Compact(endpoints), now)
	return nil
}

// toDeltas orders the cells by endpoint and minute, so that concurrent
// flushes from several processes lock rows in the same order.
func toDeltas(cells map[cellKey]*cell) []store.StatsDelta {
	out := make([]store.StatsDelta, 0, len(cells))
	for k, c := range cells {
		out = append(out, store.StatsDelta{
			EndpointID: k.endpointID, Minute: time.Unix(k.minute, 0).UTC(),
			Attempts: c.attempts, Successes: c.successes, Retryable: c.retryable, Latency: slices.Clone(c.latency[:]),
		})
	}
	slices.SortFunc(out, func(x, y store.StatsDelta) int {
		return cmp.Or(cmp.Compare(x.EndpointID, y.EndpointID), x.Minute.Compare(y.Minute))
	})
	return out
}

// restore adds back cells a failed flush took, dropping minutes older
// than Keep so an unreachable store cannot grow memory without bound.
func (a *Aggregator) restore(cells map[cellKey]*cell) {
	oldest := a.cfg.Now().Add(-Keep).Unix()
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, c := range cells {
		if k.minute < oldest {
			continue
		}
		cur := a.cells[k]
		if cur == nil {
			a.cells[k] = c
			continue
		}
		cur.attempts += c.attempts
		cur.successes += c.successes
		cur.retryable += c.retryable
		for i, n := range c.latency {
			cur.latency[i] += n
		}
	}
}

// prune deletes rows older than Keep, at most once an hour per process.
func (a *Aggregator) prune(ctx context.Context, now time.Time) {
	if now.Sub(a.lastPrune) < time.Hour {
		return
	}
	a.lastPrune = now
	n, err := a.cfg.Store.PruneStats(ctx, now.Add(-Keep))
	if err != nil {
		a.log.Warn("prune attempt stats", "error", err)
		return
	}
	if n > 0 {
		a.log.Debug("pruned attempt stats", "rows", n)
	}
}
