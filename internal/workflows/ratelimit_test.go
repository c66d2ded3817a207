package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
)

// A first attempt over the endpoint's rate limit waits for the slot it
// reserved, its state saying "rate limit" until the slot, and then
// attempts in that slot, carrying it (versionRateSlot): one reservation,
// no attempt spent waiting.
func TestDeliveryWaitsForItsRateLimitSlot(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.outcome = outcomes(success)
	env.fakes.rateEvery = time.Second
	env.fakes.rateTAT = t0.Add(3 * time.Second) // three slots already taken
	var waiting delivery.Result
	env.queryAt(t, time.Second, delivery.QueryState, &waiting)
	env.ExecuteWorkflow(delivery.WorkflowDelivery, newRequest("throttled", []time.Duration{time.Second}))
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res delivery.Result
	require.NoError(t, env.GetWorkflowResult(&res))

	assert.Equal(t, delivery.StatusPending, waiting.Status)
	assert.Equal(t, delivery.WaitRateLimit, waiting.WaitReason)
	assert.Equal(t, t0.Add(3*time.Second), waiting.WaitUntil, "next_attempt_at is the slot")
	assert.Empty(t, waiting.Attempts, "waiting spends no attempt")

	calls, _, _ := env.fakes.snapshot()
	require.Len(t, calls, 2)
	assert.Equal(t, delivery.ActivityFirstAttempt, calls[0].activity)
	assert.True(t, calls[0].deferred)
	assert.Equal(t, delivery.ActivityWakeAttempt, calls[1].activity)
	assert.False(t, calls[1].deferred)
	assert.Equal(t, t0.Add(3*time.Second), calls[1].at, "woken at its slot")
	require.NotNil(t, calls[1].held, "the wake-up carries the slot")
	assert.Equal(t, t0.Add(3*time.Second), calls[1].held.At)
	assert.Equal(t, 1, env.fakes.reserved, "the slot was not reserved again")
	assert.Equal(t, delivery.StatusDelivered, res.Status)
	require.Len(t, res.Attempts, 1)
	assert.Equal(t, 1, res.Attempts[0].Number)
	assert.Equal(t, []string{delivery.SearchStatusWaiting, string(delivery.StatusDelivered)}, env.statuses)
}

// A delivery whose first slot was reserved at ingest (its start delayed
// to it) makes its first attempt in that slot, carrying it: nothing is
// reserved again, nothing waits in the run, no status is written.
func TestDeliveryAttemptsInTheSlotReservedAtIngest(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.outcome = outcomes(success)
	env.fakes.rateEvery = time.Second
	env.fakes.rateTAT = t0.Add(3 * time.Second)
	req := newRequest("slot-at-ingest", []time.Duration{time.Second})
	req.Slot = &delivery.Slot{At: t0, Since: t0, Lead: 100 * time.Millisecond}
	env.ExecuteWorkflow(delivery.WorkflowDelivery, req)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res delivery.Result
	require.NoError(t, env.GetWorkflowResult(&res))

	calls, _, _ := env.fakes.snapshot()
	require.Len(t, calls, 1)
	assert.Equal(t, delivery.ActivityFirstAttempt, calls[0].activity)
	assert.False(t, calls[0].deferred)
	require.NotNil(t, calls[0].held, "the first attempt carries the slot")
	assert.Equal(t, t0, calls[0].held.At)
	assert.Zero(t, env.fakes.reserved, "the slot was not reserved again")
	assert.Equal(t, delivery.StatusDelivered, res.Status)
	assert.Empty(t, env.statuses, "the happy path writes no status")
}

// A retry over the limit waits for its slot the same way: the Retry
// activity completes unsent with the slot, and the wake-up carries it.
func TestRetryWaitsForItsRateLimitSlot(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.outcome = outcomes(retryable, success)
	env.fakes.rateEvery = time.Minute
	env.ExecuteWorkflow(delivery.WorkflowDelivery, newRequest("throttled-retry", []time.Duration{10 * time.Second}))
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	calls, _, _ := env.fakes.snapshot()
	require.Len(t, calls, 3)
	assert.Equal(t, delivery.ActivityFirstAttempt, calls[0].activity)
	assert.Equal(t, delivery.ActivityRetry, calls[1].activity)
	assert.True(t, calls[1].deferred, "10s later, the next slot is a minute after the first")
	assert.Equal(t, delivery.ActivityWakeAttempt, calls[2].activity)
	assert.Equal(t, t0.Add(time.Minute), calls[2].at)
	require.NotNil(t, calls[2].held)
	assert.Equal(t, 2, calls[2].number)
	assert.Equal(t, 2, env.fakes.reserved)
}
