//go:build histories

package workflows_test

import (
	"testing"
	"time"
)

// TestGenerateRateLimitHistory records a delivery over its endpoint's
// rate limit: its first attempt deferred to the slot it reserved, two
// seconds ahead, and the wake-up attempt in that slot, carrying it
// (versionRateSlot), delivered.
//
//	go test -tags histories ./internal/workflows/ -run TestGenerateRateLimitHistory -update
func TestGenerateRateLimitHistory(t *testing.T) {
	fakes := &fakeActivities{now: time.Now, outcome: outcomes(success), rateEvery: time.Second, rateTAT: time.Now().Add(2 * time.Second)}
	ctx, c := recordOn(t, fakes)
	run := startDelivery(ctx, t, c, newRequest("rate-limit", []time.Duration{time.Second}))
	requireDelivered(ctx, t, run, 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histRateLimit)
}
