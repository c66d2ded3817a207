package workflows_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/hookd/hookd/internal/delivery"
)

const (
	success   = delivery.OutcomeSuccess
	retryable = delivery.OutcomeRetryable
	permanent = delivery.OutcomePermanent
)

// retryableThen scripts n retryable attempts followed by the given ones.
func retryableThen(n int, then ...delivery.Outcome) []delivery.Outcome {
	return append(slices.Repeat([]delivery.Outcome{retryable}, n), then...)
}

func TestDeliveryAttemptsAndDelays(t *testing.T) {
	custom := []time.Duration{10 * time.Second, time.Minute, 5 * time.Minute}
	tests := []struct {
		name     string
		schedule []time.Duration
		outcomes []delivery.Outcome // later attempts are retryable
		delay    func(delivery.Request, int) time.Duration
		want     delivery.Status
		// wantDelays is the time between consecutive attempts; one more
		// attempt than delays is expected.
		wantDelays []time.Duration
		// wantUpserts are the HookdStatus values upserted, in order.
		wantUpserts []string
	}{{
		name:     "delivered on the first attempt",
		schedule: custom, outcomes: []delivery.Outcome{success},
		want: delivery.StatusDelivered,
	}, {
		name:     "permanent failure on the first attempt",
		schedule: custom, outcomes: []delivery.Outcome{permanent},
		want: delivery.StatusFailed, wantUpserts: []string{"failed"},
	}, {
		name:     "default schedule, delivered on the last attempt",
		schedule: delivery.DefaultSchedule(), outcomes: retryableThen(len(delivery.DefaultSchedule()), success),
		want: delivery.StatusDelivered, wantDelays: delivery.DefaultSchedule(), wantUpserts: []string{"retrying", "delivered"},
	}, {
		name:     "custom schedule, delivered on the third attempt",
		schedule: custom, outcomes: retryableThen(2, success),
		want: delivery.StatusDelivered, wantDelays: custom[:2], wantUpserts: []string{"retrying", "delivered"},
	}, {
		name:     "default schedule exhausted",
		schedule: delivery.DefaultSchedule(),
		want:     delivery.StatusExhausted, wantDelays: delivery.DefaultSchedule(), wantUpserts: []string{"retrying", "exhausted"},
	}, {
		name:     "custom schedule exhausted",
		schedule: custom,
		want:     delivery.StatusExhausted, wantDelays: custom, wantUpserts: []string{"retrying", "exhausted"},
	}, {
		name:     "permanent failure during the retries stops at once",
		schedule: custom, outcomes: retryableThen(2, permanent),
		want: delivery.StatusFailed, wantDelays: custom[:2], wantUpserts: []string{"retrying", "failed"},
	}, {
		name:     "the attempt's delay (jitter, Retry-After) replaces the schedule",
		schedule: custom, outcomes: retryableThen(3, success),
		delay: func(_ delivery.Request, n int) time.Duration {
			return []time.Duration{12 * time.Second, 2 * time.Second, 4 * time.Minute}[n-1]
		},
		want: delivery.StatusDelivered, wantDelays: []time.Duration{12 * time.Second, 2 * time.Second, 4 * time.Minute},
		wantUpserts: []string{"retrying", "delivered"},
	}, {
		name:     "a broken first attempt is retried on the schedule",
		schedule: custom, outcomes: []delivery.Outcome{outcomeBroken, success},
		want: delivery.StatusDelivered, wantDelays: custom[:1], wantUpserts: []string{"retrying", "delivered"},
	}, {
		name: "no schedule: a retryable first attempt exhausts the budget",
		want: delivery.StatusExhausted, wantUpserts: []string{"exhausted"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			env.fakes.outcome = outcomes(tc.outcomes...)
			env.fakes.delay = tc.delay
			req := newRequest("attempts", tc.schedule)

			env.ExecuteWorkflow(delivery.WorkflowDelivery, req)
			require.True(t, env.IsWorkflowCompleted())
			res := deliveryResult(t, env, tc.want)

			calls, deadLetters, redrives := env.fakes.snapshot()
			wantAttempts := 1 + len(tc.wantDelays)
			require.Len(t, calls, wantAttempts, "attempts made")
			var gotDelays []time.Duration
			for i, c := range calls {
				wantActivity := delivery.ActivityRetry
				if i == 0 {
					wantActivity = delivery.ActivityFirstAttempt
				} else {
					gotDelays = append(gotDelays, c.at.Sub(calls[i-1].at))
				}
				assert.Equal(t, wantActivity, c.activity, "activity of attempt %d", i+1)
				assert.Equal(t, i+1, c.number, "number of attempt %d", i+1)
			}
			assert.Equal(t, t0, calls[0].at, "the first attempt is made at once")
			assert.Equal(t, tc.wantDelays, gotDelays, "delays between attempts")

			assert.Equal(t, tc.want, res.Status)
			require.Len(t, res.Attempts, wantAttempts, "timeline")
			for i, a := range res.Attempts {
				assert.Equal(t, i+1, a.Number, "timeline entry %d", i)
			}
			assert.Equal(t, tc.wantUpserts, env.statuses, "HookdStatus upserts")
			assert.Empty(t, redrives)

			if tc.want == delivery.StatusDelivered {
				assert.Empty(t, deadLetters)
				return
			}
			require.Len(t, deadLetters, 1, "dead letters")
			dl := deadLetters[0]
			assert.Equal(t, tc.want, dl.Reason)
			assert.Equal(t, req, dl.Request)
			assert.Equal(t, res.Attempts, dl.Attempts, "the dead letter holds the whole timeline")
			assert.Equal(t, calls[len(calls)-1].at, dl.DeadAt)
		})
	}
}

// deliveryResult returns a finished delivery's final state: its result, or
// the details of the ApplicationError of type want it failed with.
func deliveryResult(t *testing.T, env *testEnv, want delivery.Status) delivery.Result {
	t.Helper()
	var res delivery.Result
	err := env.GetWorkflowError()
	if want == delivery.StatusDelivered {
		require.NoError(t, err)
		require.NoError(t, env.GetWorkflowResult(&res))
		return res
	}
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr)
	assert.Equal(t, string(want), appErr.Type())
	assert.True(t, appErr.NonRetryable())
	require.NoError(t, appErr.Details(&res), "details decode to a delivery.Result")
	return res
}

func TestDeliveryStateQueryWhileWaiting(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.outcome = outcomes(retryable, success)
	req := newRequest("state", []time.Duration{time.Minute, time.Hour})
	var waiting delivery.Result
	env.queryAt(t, 30*time.Second, delivery.QueryState, &waiting)

	env.ExecuteWorkflow(delivery.WorkflowDelivery, req)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())

	assert.Equal(t, delivery.StatusPending, waiting.Status)
	require.Len(t, waiting.Attempts, 1)
	at := waiting.Attempts[0]
	assert.Equal(t, 1, at.Number)
	assert.Equal(t, delivery.OutcomeRetryable, at.Outcome)
	assert.Equal(t, 503, at.Status)
	assert.Equal(t, time.Minute, at.NextDelay)
	assert.Equal(t, t0.Add(time.Minute), at.NextAttempt)
}

// A single-attempt delivery (a test event) makes one attempt whatever
// its schedule: a failure is reported in the run's failure, not retried
// and not dead-lettered; one the endpoint's circuit held back ends
// unsent, saying why.
func TestSingleAttemptDelivery(t *testing.T) {
	for _, tc := range []struct {
		name     string
		outcome  delivery.Outcome
		open     bool
		want     delivery.Status
		attempts int
		upserts  []string
	}{
		{"delivered", success, false, delivery.StatusDelivered, 1, nil},
		{"retryable failure", retryable, false, delivery.StatusFailed, 1, []string{"failed"}},
		{"permanent failure", permanent, false, delivery.StatusFailed, 1, []string{"failed"}},
		{"held back by the circuit", success, true, delivery.StatusFailed, 0, []string{"failed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			env.fakes.outcome = outcomes(tc.outcome)
			if tc.open {
				env.fakes.setOpenUntil(t0.Add(time.Hour))
			}
			req := newRequest("single", []time.Duration{time.Second, time.Minute})
			req.SingleAttempt = true
			env.ExecuteWorkflow(delivery.WorkflowDelivery, req)
			require.True(t, env.IsWorkflowCompleted())
			res := deliveryResult(t, env, tc.want)
			calls, deadLetters, _ := env.fakes.snapshot()
			assert.Len(t, res.Attempts, tc.attempts)
			assert.Empty(t, deadLetters, "never dead-lettered")
			assert.Equal(t, tc.upserts, env.statuses)
			if tc.open {
				assert.Equal(t, "circuit open", res.WaitReason)
				return
			}
			require.Len(t, calls, 1, "one attempt")
			assert.Equal(t, delivery.ActivityFirstAttempt, calls[0].activity)
			assert.Zero(t, res.Attempts[0].NextDelay, "nothing follows it")
		})
	}
}
