package ingest

import (
	"context"
	"log/slog"
	"time"
)

// DefaultPruneEvery is how often a process prunes the event records.
const DefaultPruneEvery = time.Hour

// Pruner deletes the event records accepted before a time (the endpoint
// store).
type Pruner interface {
	PruneEvents(ctx context.Context, before time.Time) (int64, error)
}

// RunPruner deletes the records accepted more than window ago, at once and
// then every interval, until ctx ends. Every process may run it: pruning
// twice deletes nothing more.
func RunPruner(ctx context.Context, p Pruner, window, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		n, err := p.PruneEvents(ctx, time.Now().Add(-window))
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.Warn("prune event records", "error", err)
		case n > 0:
			log.Info("pruned event records past the dedup window", "records", n, "window", window)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
