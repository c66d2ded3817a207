package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
)

// The expunge signal ends a delivery whatever it waits on: the schedule's
// timer, Temporal's retry of the Retry activity, or a deferral. It ends
// expunged, not attempted again and without a dead letter.
func TestExpungeSignalEndsTheDelivery(t *testing.T) {
	for name, setup := range map[string]func(env *testEnv){
		"waiting for the first retry": func(*testEnv) {},
		"between Temporal's retries": func(env *testEnv) {
			env.fakes.delay = func(_ delivery.Request, n int) time.Duration {
				if n == 1 {
					return time.Minute
				}
				return time.Hour
			}
		},
		"deferred by its endpoint": func(env *testEnv) { env.fakes.setOpenUntil(t0.Add(24 * time.Hour)) },
	} {
		t.Run(name, func(t *testing.T) {
			env := newTestEnv(t)
			setup(env)
			env.signalAt(10*time.Minute, delivery.SignalExpunge, nil)
			env.ExecuteWorkflow(delivery.WorkflowDelivery, sealedRequest("expunge", []time.Duration{time.Hour, time.Hour, time.Hour}))
			require.True(t, env.IsWorkflowCompleted())
			res := deliveryResult(t, env, delivery.StatusExpunged)
			calls, dead, _ := env.fakes.snapshot()
			assert.Empty(t, dead, "no dead letter")
			for _, c := range calls {
				assert.True(t, c.at.Before(t0.Add(10*time.Minute)), "nothing attempted after the expunge: %+v", c)
			}
			assert.Equal(t, delivery.StatusExpunged, res.Status)
			assert.Equal(t, string(delivery.StatusExpunged), env.statuses[len(env.statuses)-1])
		})
	}
}

// An attempt that finds the event's key gone ends the delivery
// expunged, as a first attempt or as one of Temporal's retries.
func TestExpungedAttemptEndsTheDelivery(t *testing.T) {
	for _, n := range []int{1, 3} {
		env := newTestEnv(t)
		env.fakes.outcome = func(_ delivery.Request, i int) delivery.Outcome {
			if i == n {
				return delivery.OutcomeExpunged
			}
			return delivery.OutcomeRetryable
		}
		env.ExecuteWorkflow(delivery.WorkflowDelivery, sealedRequest("expunged", []time.Duration{time.Minute, time.Minute, time.Minute}))
		res := deliveryResult(t, env, delivery.StatusExpunged)
		assert.Len(t, res.Attempts, n-1, "the expunged attempt sent nothing and is not counted")
		_, dead, _ := env.fakes.snapshot()
		assert.Empty(t, dead)
	}
}

// A delivery delivered before the signal stays delivered.
func TestExpungeAfterDeliveryChangesNothing(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.outcome = outcomes(success)
	env.ExecuteWorkflow(delivery.WorkflowDelivery, sealedRequest("done", nil))
	deliveryResult(t, env, delivery.StatusDelivered)
}
