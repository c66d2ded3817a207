//go:build histories

package workflows_test

import (
	"testing"
	"time"

	"github.com/hookd/hookd/internal/delivery"
)

// TestGenerateRecoveredEventHistory records a delivery delivered on its
// third attempt that announces it (changeRecoveredEvent version 1).
//
//	go test -tags histories ./internal/workflows/ -run TestGenerateRecoveredEventHistory -update
func TestGenerateRecoveredEventHistory(t *testing.T) {
	fakes := &fakeActivities{now: time.Now, outcome: script, retention: func(delivery.DeadLetter) time.Duration { return time.Hour }}
	ctx, c := recordOn(t, fakes)
	run := startDelivery(ctx, t, c, newRequest("retry", []time.Duration{time.Second, time.Second, time.Second}))
	requireDelivered(ctx, t, run, 3)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histRecoveredEvent)
}
