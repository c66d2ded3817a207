//go:build histories

package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/delivery"
)

// TestGenerateExpungeHistories records the two ways a delivery ends
// expunged (changeExpunge version 1), each with a body sealed by its
// event's key: the expunge signal cancelling the wait for the next
// attempt, and a retry that finds the event's key gone.
//
//	go test -tags histories ./internal/workflows/ -run TestGenerateExpungeHistories -update
func TestGenerateExpungeHistories(t *testing.T) {
	fakes := &fakeActivities{now: time.Now, outcome: func(req delivery.Request, n int) delivery.Outcome {
		if req.EventID == "evt_expunged_attempt" && n == 2 {
			return delivery.OutcomeExpunged
		}
		return delivery.OutcomeRetryable
	}, retention: func(delivery.DeadLetter) time.Duration { return time.Hour }}
	ctx, c := recordOn(t, fakes)

	waiting := sealedRequest("expunged_waiting", []time.Duration{time.Hour, time.Hour})
	run := startDelivery(ctx, t, c, waiting)
	require.Eventually(t, func() bool { calls, _, _ := fakes.snapshot(); return len(calls) == 1 }, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, c.SignalWorkflow(ctx, run.GetID(), "", delivery.SignalExpunge, nil))
	requireFailed(ctx, t, run, delivery.StatusExpunged, 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histDeliveryExpungedWaiting)

	run = startDelivery(ctx, t, c, sealedRequest("expunged_attempt", []time.Duration{time.Second, time.Second}))
	requireFailed(ctx, t, run, delivery.StatusExpunged, 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histDeliveryExpungedAttempt)
	_, dead, _ := fakes.snapshot()
	require.Empty(t, dead, "an expunged delivery is no dead letter")
}

// TestGenerateExpungeOldHistory records the expunge of an event from
// before per-event keys: the delivery's body is in its input as it is
// (sealed by the payload codec alone), its first attempt failed and it
// waits for the next when the expunge signal comes. Until the signal the
// run writes what a worker from before changeExpunge wrote (its
// goroutine writes no command until then); the signal takes version 1
// and ends the pending delivery expunged.
//
//	go test -tags histories ./internal/workflows/ -run TestGenerateExpungeOldHistory -update
func TestGenerateExpungeOldHistory(t *testing.T) {
	fakes := &fakeActivities{now: time.Now, outcome: func(delivery.Request, int) delivery.Outcome { return delivery.OutcomeRetryable },
		retention: func(delivery.DeadLetter) time.Duration { return time.Hour }}
	ctx, c := recordOn(t, fakes)

	run := startDelivery(ctx, t, c, newRequest("expunged_old", []time.Duration{time.Hour, time.Hour}))
	require.Eventually(t, func() bool { calls, _, _ := fakes.snapshot(); return len(calls) == 1 }, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, c.SignalWorkflow(ctx, run.GetID(), "", delivery.SignalExpunge, nil))
	requireFailed(ctx, t, run, delivery.StatusExpunged, 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histDeliveryExpungedOld)
	_, dead, _ := fakes.snapshot()
	require.Empty(t, dead, "an expunged delivery is no dead letter")
}

// TestGenerateTenantExpungeHistory records a tenant's expunge job over
// three pages.
//
//	go test -tags histories ./internal/workflows/ -run TestGenerateTenantExpungeHistory -update
func TestGenerateTenantExpungeHistory(t *testing.T) {
	fakes := &fakeActivities{now: time.Now, outcome: script}
	ctx, c := recordOn(t, fakes)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: delivery.TenantExpungeID("acme"), TaskQueue: delivery.TaskQueue},
		delivery.WorkflowTenantExpunge, delivery.TenantExpungeInput{TenantID: "acme", Incarnation: "i1", By: "api-key:1", At: time.Now().UTC()})
	require.NoError(t, err)
	var p delivery.ExpungeProgress
	require.NoError(t, run.Get(ctx, &p))
	require.Equal(t, int64(219), p.Expunged)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histTenantExpunge)
}
