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

// TestGenerateRateLimitHistory records a delivery over its endpoint's
// rate limit: its first attempt deferred to the slot it reserved, two
// seconds ahead, and the wake-up attempt in that slot, carrying it
// (versionRateSlot), delivered.
//
//	go test -tags histories ./internal/workflows/ -run TestGenerateRateLimitHistory -update
func TestGenerateRateLimitHistory(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata/*.json")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ts := newHistoryServer(ctx, t)
	c := ts.GetDefaultClient()
	fakes := &fakeActivities{now: time.Now, outcome: outcomes(success), temporal: c, rateEvery: time.Second, rateTAT: time.Now().Add(2 * time.Second)}
	ts.NewWorker(delivery.TaskQueue, func(r worker.Registry) {
		workflows.Register(r)
		fakes.register(r)
	})
	run := startDelivery(ctx, t, c, newRequest("rate-limit", []time.Duration{time.Second}))
	requireDelivered(ctx, t, run, 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histRateLimit)
}
