package workflows_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
)

// A deferred delivery wakes up by attempting at once in a local activity
// (WakeAttempt), deferred again while the endpoint is still closed; only
// a retryable failure goes on to Retry on the schedule. A wake-up attempt
// that breaks falls back to asking Admit, then Retry.
func TestDeliveryWaitsOutADeferral(t *testing.T) {
	type step struct {
		activity string
		deferred bool
		after    time.Duration // since the previous step
	}
	tests := []struct {
		name     string
		outcome  func(delivery.Request, int) delivery.Outcome
		closed   func(n int) bool // gate check n finds the endpoint closed
		want     []step
		attempts int
		statuses []string // the last two search-attribute statuses; nil: waiting, delivered
	}{{
		name:    "first attempt deferred, two closed wake-ups",
		outcome: outcomes(success),
		closed:  func(n int) bool { return n <= 3 },
		want: []step{
			{delivery.ActivityFirstAttempt, true, 0},
			{delivery.ActivityWakeAttempt, true, time.Minute},
			{delivery.ActivityWakeAttempt, true, time.Minute},
			{delivery.ActivityWakeAttempt, false, time.Minute},
		},
		attempts: 1,
	}, {
		name:    "a retry deferred mid-schedule",
		outcome: outcomes(retryable, success),
		closed:  func(n int) bool { return n == 2 },
		want: []step{
			{delivery.ActivityFirstAttempt, false, 0},
			{delivery.ActivityRetry, true, 10 * time.Second},
			{delivery.ActivityWakeAttempt, false, time.Minute},
		},
		attempts: 2,
	}, {
		name:    "a wake-up attempt fails retryably: Retry goes on with the schedule",
		outcome: outcomes(retryable, success),
		closed:  func(n int) bool { return n == 1 },
		want: []step{
			{delivery.ActivityFirstAttempt, true, 0},
			{delivery.ActivityWakeAttempt, false, time.Minute},
			{delivery.ActivityRetry, false, 10 * time.Second},
		},
		attempts: 2,
		statuses: []string{"retrying", "delivered"},
	}, {
		name:    "the wake-up attempt broke: Admit, then Retry",
		outcome: brokenOnce(),
		closed:  func(n int) bool { return n == 1 },
		want: []step{
			{delivery.ActivityFirstAttempt, true, 0},
			{delivery.ActivityWakeAttempt, false, time.Minute},
			{delivery.ActivityAdmit, false, 0},
			{delivery.ActivityRetry, false, 0},
		},
		attempts: 1,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			env.fakes.outcome = tc.outcome
			env.fakes.closed = func(_ delivery.Request, n int) bool { return tc.closed(n) }
			env.fakes.deferFor = time.Minute
			env.ExecuteWorkflow(delivery.WorkflowDelivery, newRequest("wait", []time.Duration{10 * time.Second, time.Minute}))
			require.True(t, env.IsWorkflowCompleted())
			res := deliveryResult(t, env, delivery.StatusDelivered)

			calls, _, _ := env.fakes.snapshot()
			var got []step
			for i, c := range calls {
				s := step{activity: c.activity, deferred: c.deferred}
				if i > 0 {
					s.after = c.at.Sub(calls[i-1].at)
				}
				got = append(got, s)
			}
			assert.Equal(t, tc.want, got)
			require.Len(t, res.Attempts, tc.attempts, "deferrals are not attempts")
			for i, a := range res.Attempts {
				assert.Equal(t, i+1, a.Number)
			}
			statuses := tc.statuses
			if statuses == nil {
				statuses = []string{"waiting", "delivered"}
			}
			assert.Equal(t, statuses, env.statuses[len(env.statuses)-2:])
		})
	}
}

// brokenOnce scripts an attempt that breaks (as a worker timeout or a
// panic would), then successes.
func brokenOnce() func(delivery.Request, int) delivery.Outcome {
	broke := false
	return func(delivery.Request, int) delivery.Outcome {
		if broke {
			return success
		}
		broke = true
		return outcomeBroken
	}
}

// A max-size delivery parked behind a disabled endpoint for a day (1,500
// wake-ups, one a minute) keeps every run's history under 4 MiB, a
// twelfth of Temporal's 50 MiB limit: waiting does not re-record the
// body, and each run continues as new when Temporal suggests it. The
// timeline survives every continue-as-new. (Re-recording the 256 KiB body
// at each wake-up, as a run at bounded-wait's DefaultVersion does, passes
// 4 MiB within 16 wake-ups and the limit within 200.)
func TestParkedMaxSizeDeliveryHistoryStaysBounded(t *testing.T) {
	const wakeUps = 1500
	req := newRequest("parked", delivery.DefaultSchedule())
	req.Body = `{"pad":"` + strings.Repeat("x", 256<<10-10) + `"}`
	require.Len(t, req.Body, 256<<10)
	checks := 0 // gate checks across runs: the endpoint is disabled from the first retry on
	closed := func(delivery.Request, int) bool { checks++; return checks >= 2 && checks <= 1+wakeUps }

	var runs []int // each run's largest estimate
	for len(runs) < 20 {
		env := newTestEnv(t)
		env.fakes.outcome = outcomes(retryable, success)
		env.fakes.closed, env.fakes.deferFor = closed, time.Minute
		meter := env.meter()
		env.ExecuteWorkflow(delivery.WorkflowDelivery, req)
		require.True(t, env.IsWorkflowCompleted())
		runs = append(runs, meter.maxBytes)
		require.Less(t, meter.maxBytes, suggestBytes, "run %d: history estimate", len(runs))

		var can *workflow.ContinueAsNewError
		if !errors.As(env.GetWorkflowError(), &can) {
			res := deliveryResult(t, env, delivery.StatusDelivered)
			require.Len(t, res.Attempts, 2, "the timeline of every run")
			assert.Equal(t, retryable, res.Attempts[0].Outcome)
			assert.Equal(t, success, res.Attempts[1].Outcome)
			assert.Equal(t, 2, res.Attempts[1].Number)
			break
		}
		var next delivery.Request
		require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
		require.Len(t, next.Resume, 1, "the continued run carries the timeline")
		assert.Equal(t, 1, next.Resume[0].Number)
		assert.Equal(t, req.Body, next.Body)
		req = next
	}
	t.Logf("%d wake-ups in %d runs; largest history estimate per run: %v bytes", wakeUps, len(runs), runs)
	assert.Greater(t, len(runs), 1, "the runs continued as new")
	assert.Less(t, len(runs), 20)
	assert.Greater(t, checks, wakeUps, "every wake-up was waited out")
}
