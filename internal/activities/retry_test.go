package activities

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// first is a delivery's failed first attempt, as the workflow passes it to
// Retry.
var first = delivery.Attempt{Number: 1, Status: 503, Outcome: delivery.OutcomeRetryable, ErrorClass: "http_5xx", NextDelay: time.Second}

// appError unwraps the application error an activity failed with.
func appError(t *testing.T, err error) *temporal.ApplicationError {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "%v", err)
	return appErr
}

func numbers(timeline []delivery.Attempt) []int {
	var out []int
	for _, at := range timeline {
		out = append(out, at.Number)
	}
	return out
}

// A retryable failure: the attempt is numbered after the prior ones, the
// timeline is heartbeated for the next try, and the error carries the
// schedule's delay for Temporal and the timeline for the workflow.
func TestRetryFailureCarriesDelayAndTimeline(t *testing.T) {
	rc := newScripted(t, 503)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	env := activityEnv(newTestActivities(eps, nil, nil))
	var heartbeats [][]delivery.Attempt
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, d converter.EncodedValues) {
		var timeline []delivery.Attempt
		require.NoError(t, d.Get(&timeline))
		heartbeats = append(heartbeats, timeline)
	})

	_, err := env.ExecuteActivity(delivery.ActivityRetry, delivery.RetryInput{Request: request("ep_1", 3), Prior: []delivery.Attempt{first}})

	appErr := appError(t, err)
	assert.Equal(t, delivery.ErrTypeRetryable, appErr.Type())
	assert.False(t, appErr.NonRetryable())
	assert.Equal(t, time.Second, appErr.NextRetryDelay(), "the schedule's step (no jitter in this test)")
	var timeline []delivery.Attempt
	require.NoError(t, appErr.Details(&timeline))
	assert.Equal(t, []int{1, 2}, numbers(timeline))
	assert.Equal(t, 503, timeline[1].Status)
	assert.Equal(t, "schedule", timeline[1].DelayReason)
	assert.Equal(t, []string{"2"}, rc.seen())
	require.Len(t, heartbeats, 1)
	assert.Equal(t, []int{1, 2}, numbers(heartbeats[0]))
}

// A permanent failure and the last attempt of the schedule end the
// retries: non-retryable errors of their own type, with the timeline.
func TestRetryStopsOnPermanentAndExhausted(t *testing.T) {
	for name, c := range map[string]struct {
		status  int
		retries int
		errType string
	}{
		"permanent": {404, 3, delivery.ErrTypePermanent},
		"exhausted": {503, 1, delivery.ErrTypeExhausted},
	} {
		t.Run(name, func(t *testing.T) {
			rc := newScripted(t, c.status)
			eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
			env := activityEnv(newTestActivities(eps, nil, nil))
			_, err := env.ExecuteActivity(delivery.ActivityRetry, delivery.RetryInput{Request: request("ep_1", c.retries), Prior: []delivery.Attempt{first}})
			appErr := appError(t, err)
			assert.Equal(t, c.errType, appErr.Type())
			assert.True(t, appErr.NonRetryable())
			var timeline []delivery.Attempt
			require.NoError(t, appErr.Details(&timeline))
			assert.Equal(t, []int{1, 2}, numbers(timeline))
			assert.Zero(t, timeline[1].NextDelay, "no next attempt")
		})
	}
}

// A deferred attempt (here: the endpoint is disabled) sends nothing and
// completes, so Temporal does not count it; the timeline is unchanged.
func TestRetryDeferredCountsNothing(t *testing.T) {
	rc := newScripted(t, 200)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: false})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	env := activityEnv(newTestActivities(eps, nil, func() time.Time { return now }))
	v, err := env.ExecuteActivity(delivery.ActivityRetry, delivery.RetryInput{Request: request("ep_1", 3), Prior: []delivery.Attempt{first}})
	require.NoError(t, err)
	var res delivery.Result
	require.NoError(t, v.Get(&res))
	assert.Equal(t, delivery.StatusPending, res.Status)
	assert.Equal(t, "endpoint disabled", res.WaitReason)
	assert.Equal(t, now.Add(DefaultDisabledPoll), res.WaitUntil)
	assert.Equal(t, []int{1}, numbers(res.Attempts))
	assert.Empty(t, rc.seen())
}

// retryWorkflow runs Retry with the retry policy the delivery workflow
// gives it, so Temporal's test server retries it: each try sees Temporal's
// attempt number and the previous try's heartbeat, as on a real server.
func retryWorkflow(ctx workflow.Context, in delivery.RetryInput) (delivery.Result, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: int32(in.Request.Attempts() - len(in.Prior))},
	})
	var res delivery.Result
	err := workflow.ExecuteActivity(ctx, delivery.ActivityRetry, in).Get(ctx, &res)
	return res, err
}

func runRetries(t *testing.T, a *Activities, in delivery.RetryInput) (delivery.Result, error) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflow(retryWorkflow)
	env.RegisterActivity(a)
	env.ExecuteWorkflow(retryWorkflow, in)
	require.True(t, env.IsWorkflowCompleted())
	var res delivery.Result
	err := env.GetWorkflowError()
	if err == nil {
		require.NoError(t, env.GetWorkflowResult(&res))
	}
	return res, err
}

// Across Temporal's retries the attempts are numbered on from the prior
// ones and the timeline is recovered from each try's heartbeat: the
// delivered result holds every attempt, and the receiver saw each number
// once.
func TestRetryTimelineSurvivesTemporalRetries(t *testing.T) {
	rc := newScripted(t, 503, 500, 200)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	res, err := runRetries(t, newTestActivities(eps, nil, nil), delivery.RetryInput{Request: request("ep_1", 4), Prior: []delivery.Attempt{first}})
	require.NoError(t, err)
	assert.Equal(t, delivery.StatusDelivered, res.Status)
	assert.Equal(t, []int{1, 2, 3, 4}, numbers(res.Attempts))
	assert.Equal(t, []int{503, 503, 500, 200}, []int{res.Attempts[0].Status, res.Attempts[1].Status, res.Attempts[2].Status, res.Attempts[3].Status})
	assert.Equal(t, []string{"2", "3", "4"}, rc.seen())
}

// When the schedule runs out the last try fails as exhausted, carrying
// every attempt the earlier tries heartbeated.
func TestRetryExhaustsTheSchedule(t *testing.T) {
	rc := newScripted(t, 503)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	_, err := runRetries(t, newTestActivities(eps, nil, nil), delivery.RetryInput{Request: request("ep_1", 3), Prior: []delivery.Attempt{first}})
	appErr := appError(t, err)
	assert.Equal(t, delivery.ErrTypeExhausted, appErr.Type())
	var timeline []delivery.Attempt
	require.NoError(t, appErr.Details(&timeline))
	assert.Equal(t, []int{1, 2, 3, 4}, numbers(timeline))
	assert.Equal(t, []string{"2", "3", "4"}, rc.seen())
}

// A wake-up attempt is numbered after the prior ones, on the wire too, and
// reports its outcome as a value, failure included: the workflow decides.
func TestWakeAttemptNumbersAfterPrior(t *testing.T) {
	rc := newScripted(t, 503)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	env := activityEnv(newTestActivities(eps, nil, nil))
	second := first
	second.Number = 2

	v, err := env.ExecuteActivity(delivery.ActivityWakeAttempt, delivery.RetryInput{Request: request("ep_1", 3), Prior: []delivery.Attempt{first, second}})
	require.NoError(t, err)
	var at delivery.Attempt
	require.NoError(t, v.Get(&at))
	assert.Equal(t, 3, at.Number)
	assert.Equal(t, delivery.OutcomeRetryable, at.Outcome)
	assert.Equal(t, time.Second, at.NextDelay, "the schedule's third step")
	assert.Equal(t, []string{"3"}, rc.seen())
}
