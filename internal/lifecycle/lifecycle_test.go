package lifecycle

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

func TestStopCancelsAndJoinsEveryLoop(t *testing.T) {
	g := New(nil)
	var ended atomic.Int32
	for range 3 {
		if !g.Go("loop", func(ctx context.Context) {
			<-ctx.Done()
			time.Sleep(10 * time.Millisecond) // work after the cancel is waited for
			ended.Add(1)
		}) {
			t.Fatal("Go refused work before Stop")
		}
	}
	if err := g.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := ended.Load(); n != 3 {
		t.Fatalf("Stop returned with %d of 3 loops ended", n)
	}
	if g.Go("late", func(context.Context) { t.Error("work started after Stop") }) {
		t.Error("Go accepted work after Stop")
	}
}

func TestStopGivesUpAtItsDeadline(t *testing.T) {
	g := New(nil)
	release := make(chan struct{})
	g.Go("stuck", func(context.Context) { <-release })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := g.Stop(ctx); err != context.DeadlineExceeded {
		t.Fatalf("Stop with a stuck loop: %v, want the deadline", err)
	}
	close(release)
}

func TestAPanicEndsOnlyItsLoop(t *testing.T) {
	g := New(nil)
	g.Go("panics", func(context.Context) { panic("boom") })
	alive := make(chan struct{})
	g.Go("survivor", func(ctx context.Context) {
		close(alive)
		<-ctx.Done()
	})
	<-alive
	if err := g.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestEveryTicksUntilDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ticks atomic.Int32
	done := make(chan struct{})
	go func() {
		Every(ctx, time.Millisecond, func(context.Context) {
			if ticks.Add(1) == 3 {
				cancel()
			}
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Every did not return after its context was cancelled")
	}
	if ticks.Load() < 3 {
		t.Fatalf("%d ticks", ticks.Load())
	}
}
