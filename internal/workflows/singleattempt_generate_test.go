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

// TestGenerateSingleAttemptHistory records a test event's delivery whose
// one attempt fails retryably: it ends failed, neither retried nor
// dead-lettered.
//
//	go test -tags histories ./internal/workflows/ -run TestGenerateSingleAttemptHistory -update
func TestGenerateSingleAttemptHistory(t *testing.T) {
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
	req := newRequest("failed-single", []time.Duration{time.Second, time.Second})
	req.SingleAttempt = true
	run := startDelivery(ctx, t, c, req)
	requireFailed(ctx, t, run, delivery.StatusFailed, 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histSingleAttempt)
}
