package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/hookd/hookd/internal/delivery"
)

// A delivery deferred by an open circuit waits for the cooldown; an
// operator's recover (the circuit closed, then the signal) ends the wait:
// the next attempt is made at once, or at the signal's NotBefore.
func TestRecoverEndsADeferralsWait(t *testing.T) {
	tests := []struct {
		name        string
		signal      any
		wantAttempt time.Duration // after t0
	}{
		{"at once", delivery.RecoverSignal{By: "api-key:1234", Reason: "receiver fixed"}, 10 * time.Minute},
		{"not before a spread's slot", delivery.RecoverSignal{By: "api-key:1234", NotBefore: t0.Add(10*time.Minute + 3*time.Second)}, 10*time.Minute + 3*time.Second},
		{"a slot after the cooldown changes nothing", delivery.RecoverSignal{NotBefore: t0.Add(2 * time.Hour)}, time.Hour},
		{"no payload, as the temporal CLI sends it", noPayload{}, 10 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			env.fakes.outcome = outcomes(success)
			env.fakes.setOpenUntil(t0.Add(time.Hour))
			var waiting delivery.Result
			env.queryAt(t, 5*time.Minute, delivery.QueryState, &waiting)
			env.RegisterDelayedCallback(func() {
				env.fakes.setOpenUntil(time.Time{}) // recover closes the circuit first
				env.SignalWorkflow(delivery.SignalRecover, tc.signal)
			}, 10*time.Minute)

			env.ExecuteWorkflow(delivery.WorkflowDelivery, newRequest("recover", []time.Duration{time.Minute}))
			require.True(t, env.IsWorkflowCompleted())
			res := deliveryResult(t, env, delivery.StatusDelivered)

			assert.Equal(t, "circuit open", waiting.WaitReason, "the state says why it waits")
			assert.Equal(t, t0.Add(time.Hour), waiting.WaitUntil)
			calls, _, _ := env.fakes.snapshot()
			calls = sent(calls)
			require.Len(t, calls, 1, "the deferral sent nothing; one attempt after the recover")
			assert.Equal(t, delivery.ActivityWakeAttempt, calls[0].activity)
			assert.Equal(t, 1, calls[0].number, "a deferral does not count as an attempt")
			assert.Equal(t, t0.Add(tc.wantAttempt), calls[0].at)
			require.Len(t, res.Attempts, 1)
			assert.Zero(t, res.WaitUntil, "the wait is over")
			assert.Equal(t, []string{"waiting", "delivered"}, env.statuses)
		})
	}
}

// A recover signal that arrives while the delivery waits on its retry
// schedule (not deferred) ends nothing, and does not end a later
// deferral's wait either: it concerned a wait that was not happening.
func TestRecoverDoesNotEndAScheduledWait(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.outcome = outcomes(retryable, success)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(delivery.SignalRecover, delivery.RecoverSignal{By: "early"})
		env.fakes.setOpenUntil(t0.Add(time.Hour)) // the circuit opens before the retry
	}, 10*time.Second)

	env.ExecuteWorkflow(delivery.WorkflowDelivery, newRequest("recover-stale", []time.Duration{time.Minute}))
	require.True(t, env.IsWorkflowCompleted())
	deliveryResult(t, env, delivery.StatusDelivered)

	calls, _, _ := env.fakes.snapshot()
	calls = sent(calls)
	require.Len(t, calls, 2)
	assert.Equal(t, t0, calls[0].at)
	assert.Equal(t, t0.Add(time.Hour), calls[1].at, "the retry waited for the circuit, not for the early recover")
	assert.Equal(t, []time.Time{t0.Add(time.Minute)}, env.fakes.deferrals)
}

// Once a deferral's wait is over the state no longer claims it: while the
// retries that follow wait on the schedule, the state's wait is empty, so
// the API takes the next attempt from the latest attempt (its heartbeat).
func TestStateForgetsAWaitThatIsOver(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.outcome = outcomes(retryable, success)
	env.fakes.setOpenUntil(t0.Add(10 * time.Minute))
	var deferred, retrying delivery.Result
	env.queryAt(t, 5*time.Minute, delivery.QueryState, &deferred)
	env.queryAt(t, 10*time.Minute+30*time.Second, delivery.QueryState, &retrying)

	env.ExecuteWorkflow(delivery.WorkflowDelivery, newRequest("state-after-wait", []time.Duration{time.Minute}))
	require.True(t, env.IsWorkflowCompleted())
	deliveryResult(t, env, delivery.StatusDelivered)

	assert.Equal(t, t0.Add(10*time.Minute), deferred.WaitUntil)
	assert.Equal(t, delivery.WaitCircuitOpen, deferred.WaitReason)
	assert.Zero(t, retrying.WaitUntil)
	assert.Empty(t, retrying.WaitReason)
	calls, _, _ := env.fakes.snapshot()
	calls = sent(calls)
	require.Len(t, calls, 2)
	assert.Equal(t, t0.Add(11*time.Minute), calls[1].at, "the retry on the schedule")
}

// updateOutcome records what became of a recover update.
type updateOutcome struct {
	accepted, completed bool
	rejected            error
	// attemptsAtCompletion counts the attempt calls made when the update
	// completed, if calls is set.
	calls                func() int
	attemptsAtCompletion int
}

func (o *updateOutcome) callbacks() *testsuite.TestUpdateCallback {
	return &testsuite.TestUpdateCallback{
		OnAccept: func() { o.accepted = true },
		OnReject: func(err error) { o.rejected = err },
		OnComplete: func(_ any, err error) {
			o.completed = err == nil
			if o.calls != nil {
				o.attemptsAtCompletion = o.calls()
			}
		},
	}
}

// The recover update ends a deferral's wait as the signal does: the woken
// delivery attempts at once, in a workflow task after the one that
// accepted the update (a millisecond's timer between them), and the
// update completes once that attempt is made.
func TestRecoverUpdateEndsADeferralsWait(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.outcome = outcomes(success)
	env.fakes.setOpenUntil(t0.Add(time.Hour))
	got := updateOutcome{calls: func() int { calls, _, _ := env.fakes.snapshot(); return len(calls) }}
	env.RegisterDelayedCallback(func() {
		env.fakes.setOpenUntil(time.Time{})
		env.UpdateWorkflow(delivery.UpdateRecover, "wake-1", got.callbacks(), delivery.RecoverSignal{By: "hookd", Reason: "circuit closed"})
	}, 10*time.Minute)

	env.ExecuteWorkflow(delivery.WorkflowDelivery, newRequest("recover-update", []time.Duration{time.Minute}))
	require.True(t, env.IsWorkflowCompleted())
	deliveryResult(t, env, delivery.StatusDelivered)

	assert.True(t, got.accepted, "accepted while waiting")
	assert.True(t, got.completed)
	assert.NoError(t, got.rejected)
	calls, _, _ := env.fakes.snapshot()
	calls = sent(calls)
	require.Len(t, calls, 1)
	assert.Equal(t, delivery.ActivityWakeAttempt, calls[0].activity)
	assert.Equal(t, t0.Add(10*time.Minute+time.Millisecond), calls[0].at, "attempted when woken, not at the cooldown's end")
	assert.Equal(t, 2, got.attemptsAtCompletion, "the update completed after the woken attempt (the first was the deferral)")
}

// A recover update that finds the delivery not waiting on its endpoint
// (here: waiting on its retry schedule) is rejected, so it writes nothing
// and the schedule holds.
func TestRecoverUpdateRejectedWhenNotWaiting(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.outcome = outcomes(retryable, success)
	var got updateOutcome
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(delivery.UpdateRecover, "wake-early", got.callbacks(), delivery.RecoverSignal{By: "early"})
	}, 10*time.Second)

	env.ExecuteWorkflow(delivery.WorkflowDelivery, newRequest("recover-update-early", []time.Duration{time.Minute}))
	require.True(t, env.IsWorkflowCompleted())
	deliveryResult(t, env, delivery.StatusDelivered)

	require.Error(t, got.rejected)
	assert.False(t, got.accepted)
	calls, _, _ := env.fakes.snapshot()
	calls = sent(calls)
	require.Len(t, calls, 2)
	assert.Equal(t, t0.Add(time.Minute), calls[1].at, "the retry kept its schedule")
}

// Once a wait has registered the handler, an update that arrives after
// the wait ended (the delivery retrying on its schedule) is rejected as
// not waiting.
func TestRecoverUpdateRejectedAfterTheWait(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.outcome = outcomes(retryable, success)
	env.fakes.setOpenUntil(t0.Add(10 * time.Minute)) // the first attempt waits out the cooldown
	var got updateOutcome
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(delivery.UpdateRecover, "wake-late", got.callbacks(), delivery.RecoverSignal{By: "late"})
	}, 10*time.Minute+10*time.Second)

	env.ExecuteWorkflow(delivery.WorkflowDelivery, newRequest("recover-update-late", []time.Duration{time.Minute}))
	require.True(t, env.IsWorkflowCompleted())
	deliveryResult(t, env, delivery.StatusDelivered)

	var appErr *temporal.ApplicationError
	require.ErrorAs(t, got.rejected, &appErr)
	assert.Equal(t, delivery.ErrTypeNotWaiting, appErr.Type())
	calls, _, _ := env.fakes.snapshot()
	calls = sent(calls)
	require.Len(t, calls, 2)
	assert.Equal(t, t0.Add(11*time.Minute), calls[1].at, "the retry on the schedule")
}
