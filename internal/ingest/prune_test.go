package ingest_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/ingest"
)

type pruneCalls struct {
	mu      sync.Mutex
	befores []time.Time
}

func (p *pruneCalls) PruneEvents(_ context.Context, before time.Time) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.befores = append(p.befores, before)
	return 1, nil
}

func (p *pruneCalls) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.befores)
}

// The pruner cuts at now minus the window, at once and then periodically,
// and stops with its context.
func TestRunPruner(t *testing.T) {
	p := &pruneCalls{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		ingest.RunPruner(ctx, p, 7*24*time.Hour, 5*time.Millisecond, slog.New(slog.DiscardHandler))
	}()
	require.Eventually(t, func() bool { return p.count() >= 3 }, 5*time.Second, time.Millisecond)
	cancel()
	<-done
	p.mu.Lock()
	defer p.mu.Unlock()
	first := p.befores[0]
	require.False(t, first.Before(start.Add(-7*24*time.Hour)), "cut at now minus the window")
	require.False(t, first.After(time.Now().Add(-7*24*time.Hour)))
}
