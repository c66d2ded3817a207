// Package lifecycle runs a process's background work one way: each loop
// starts with Group.Go and runs until the group's context is done; Stop
// cancels them all and waits for every one, so nothing a process started
// outlives its Stop. The event pruner, the attempt-figures flusher, the
// operational-event publisher and the API's wake-ups all run in one.
package lifecycle

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Group is a set of background loops sharing one context. The zero value
// is not usable; call New.
type Group struct {
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger

	mu      sync.Mutex
	wg      sync.WaitGroup
	stopped bool
	running map[string]int // name -> loops of that name still running
}

// New returns a running group whose loops log through log.
func New(log *slog.Logger) *Group {
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Group{ctx: ctx, cancel: cancel, log: log, running: map[string]int{}}
}

// Context is done once Stop is called: work started outside Go that must
// end with the group (a request's follow-up, say) derives from it.
func (g *Group) Context() context.Context { return g.ctx }

// Go runs run in its own goroutine with the group's context, unless the
// group has stopped, and reports whether it started. A panic in run is
// logged and ends that loop only.
func (g *Group) Go(name string, run func(ctx context.Context)) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		g.log.Warn("background work not started: stopping", "work", name)
		return false
	}
	g.running[name]++
	g.wg.Add(1)
	go func() {
		defer g.done(name)
		defer func() {
			if p := recover(); p != nil {
				g.log.Error("background work panicked", "work", name, "panic", p)
			}
		}()
		run(g.ctx)
	}()
	return true
}

func (g *Group) done(name string) {
	g.mu.Lock()
	if g.running[name]--; g.running[name] == 0 {
		delete(g.running, name)
	}
	g.mu.Unlock()
	g.wg.Done()
}

// Stop cancels every loop's context and waits for all of them, at most
// until ctx is done; then it logs the ones still running and returns
// ctx's error. Go refuses new work from the moment Stop is called.
func (g *Group) Stop(ctx context.Context) error {
	g.mu.Lock()
	g.stopped = true
	g.mu.Unlock()
	g.cancel()
	done := make(chan struct{})
	go func() {
		g.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		still := make(map[string]int, len(g.running))
		for k, v := range g.running {
			still[k] = v
		}
		g.mu.Unlock()
		g.log.Warn("background work still running at stop", "running", still)
		return ctx.Err()
	}
}

// Every runs tick every interval until ctx is done, first after one
// interval: the shape of a periodic loop for Go.
func Every(ctx context.Context, interval time.Duration, tick func(ctx context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			tick(ctx)
		}
	}
}
