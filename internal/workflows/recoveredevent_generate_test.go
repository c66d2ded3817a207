//go:build histories

package workflows_test

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/workflows"
)

// TestGenerateRecoveredEventHistory records a delivery delivered on its
// third attempt that announces it (changeRecoveredEvent version 1).
//
//	go test -tags histories ./internal/workflows/ -run TestGenerateRecoveredEventHistory -update
func TestGenerateRecoveredEventHistory(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata/*.json")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ts := newHistoryServer(ctx, t)
	c := ts.GetDefaultClient()
	fakes := &fakeActivities{now: time.Now, outcome: script, temporal: c, retention: func(delivery.DeadLetter) time.Duration { return time.Hour }}
	ts.NewWorker(delivery.TaskQueue, func(r worker.Registry) {
		workflows.Register(r)
		fakes.register(r)
	})
	run := startDelivery(ctx, t, c, newRequest("retry", []time.Duration{time.Second, time.Second, time.Second}))
	requireDelivered(ctx, t, run, 3)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histRecoveredEvent)
}
