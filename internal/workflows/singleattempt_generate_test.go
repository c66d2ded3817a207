//go:build histories

package workflows_test

import (
	"testing"
	"time"

	"github.com/hookd/hookd/internal/delivery"
)

// TestGenerateSingleAttemptHistory records a test event's delivery whose
// one attempt fails retryably: it ends failed, neither retried nor
// dead-lettered.
//
//	go test -tags histories ./internal/workflows/ -run TestGenerateSingleAttemptHistory -update
func TestGenerateSingleAttemptHistory(t *testing.T) {
	fakes := &fakeActivities{now: time.Now, outcome: script, retention: func(delivery.DeadLetter) time.Duration { return time.Hour }}
	ctx, c := recordOn(t, fakes)
	req := newRequest("failed-single", []time.Duration{time.Second, time.Second})
	req.SingleAttempt = true
	run := startDelivery(ctx, t, c, req)
	requireFailed(ctx, t, run, delivery.StatusFailed, 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histSingleAttempt)
}
