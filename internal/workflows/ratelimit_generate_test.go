//go:build histories

package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/hookd/hookd/internal/delivery"
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

// TestGenerateRateSlotStartHistory records a delivery whose first slot
// was reserved at ingest: its start delayed a second, to just before the
// slot, and its first attempt in it, carrying it, delivered.
//
//	go test -tags histories ./internal/workflows/ -run TestGenerateRateSlotStartHistory -update
func TestGenerateRateSlotStartHistory(t *testing.T) {
	fakes := &fakeActivities{now: time.Now, outcome: outcomes(success), rateEvery: time.Second, rateTAT: time.Now().Add(2 * time.Second)}
	ctx, c := recordOn(t, fakes)
	req := newRequest("rate-slot-start", []time.Duration{time.Second})
	lead := 100 * time.Millisecond
	req.Slot = &delivery.Slot{At: time.Now().Add(time.Second + lead), Since: t0, Lead: lead}
	opts := delivery.StartOptions(req, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
	opts.StartDelay = time.Second
	run, err := c.ExecuteWorkflow(ctx, opts, delivery.WorkflowDelivery, req)
	require.NoError(t, err)
	requireDelivered(ctx, t, run, 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histRateSlotStart)
}
