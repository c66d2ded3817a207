package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/delivery"
)

// activitySlack is added to the HTTP timeout for an attempt's
// StartToClose, so an HTTP timeout is an ordinary retryable attempt that
// follows the schedule rather than an activity timeout.
const activitySlack = 10 * time.Second

// Delivery delivers one event to one endpoint. The first attempt runs as a
// local activity (six history events when it succeeds); if it fails
// retryably, a timer waits out the first delay and a regular activity makes
// the remaining attempts, retried by Temporal on the endpoint's schedule. A
// delivery that fails permanently or exhausts the schedule is parked as a
// dead letter and the run fails with the final state as details.
func Delivery(ctx workflow.Context, req delivery.Request) (delivery.Result, error) {
	state := delivery.Result{Status: delivery.StatusPending}
	if err := workflow.SetQueryHandler(ctx, delivery.QueryState, func() (delivery.Result, error) { return state, nil }); err != nil {
		return state, err
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = delivery.DefaultTimeout
	}

	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: timeout + activitySlack,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	var first delivery.Attempt
	if err := workflow.ExecuteLocalActivity(lctx, delivery.ActivityFirstAttempt, req).Get(ctx, &first); err != nil {
		// The attempt itself broke (worker timeout, panic): count it as a
		// retryable attempt on the schedule, without jitter.
		first = delivery.Attempt{Number: 1, Start: workflow.Now(ctx), Outcome: delivery.OutcomeRetryable, ErrorClass: "internal", Error: "attempt did not complete"}
		if len(req.Schedule) > 0 {
			first.NextDelay, first.DelayReason = req.Schedule[0], "schedule"
		}
	}
	state.Attempts = append(state.Attempts, first)
	switch {
	case first.Outcome == delivery.OutcomeSuccess:
		state.Status = delivery.StatusDelivered
		return state, nil
	case first.Outcome == delivery.OutcomePermanent:
		return fail(ctx, req, &state, delivery.StatusFailed)
	case len(req.Schedule) == 0:
		return fail(ctx, req, &state, delivery.StatusExhausted)
	}

	setStatus(ctx, "retrying")
	workflow.SetCurrentDetails(ctx, "retrying after attempt 1: "+first.ErrorClass)
	if err := workflow.Sleep(ctx, first.NextDelay); err != nil {
		return state, err
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: timeout + activitySlack,
		RetryPolicy: &temporal.RetryPolicy{
			// Used only when an attempt times out (a worker died mid-attempt);
			// every other retry sets its own delay from the schedule.
			InitialInterval:    req.Schedule[0],
			BackoffCoefficient: 2,
			MaximumInterval:    delivery.MaxRetryDelay,
			MaximumAttempts:    int32(len(req.Schedule)),
		},
	})
	var res delivery.Result
	err := workflow.ExecuteActivity(actx, delivery.ActivityRetry, delivery.RetryInput{Request: req, Prior: state.Attempts}).Get(ctx, &res)
	if err == nil {
		state = res
		setStatus(ctx, string(delivery.StatusDelivered))
		return state, nil
	}
	if timeline := timelineOf(err); len(timeline) > len(state.Attempts) {
		state.Attempts = timeline
	}
	status := delivery.StatusExhausted
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == delivery.ErrTypePermanent {
		status = delivery.StatusFailed
	}
	return fail(ctx, req, &state, status)
}

// timelineOf recovers the attempts carried by the Retry activity's final
// error: its details, or the last heartbeat if the attempt timed out.
func timelineOf(err error) []delivery.Attempt {
	var (
		timeline []delivery.Attempt
		appErr   *temporal.ApplicationError
		toErr    *temporal.TimeoutError
	)
	switch {
	case errors.As(err, &appErr) && appErr.HasDetails():
		_ = appErr.Details(&timeline)
	case errors.As(err, &toErr) && toErr.HasLastHeartbeatDetails():
		_ = toErr.LastHeartbeatDetails(&timeline)
	}
	return timeline
}

// fail parks the delivery as a dead letter and fails the run with the
// final state as the error's details.
func fail(ctx workflow.Context, req delivery.Request, state *delivery.Result, status delivery.Status) (delivery.Result, error) {
	state.Status = status
	setStatus(ctx, string(status))
	workflow.SetCurrentDetails(ctx, "dead-lettered: "+string(status))
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		// No maximum: the dead letter must be parked, however long the
		// Temporal frontend takes to come back.
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	dl := delivery.DeadLetter{Request: req, Reason: status, Attempts: state.Attempts, DeadAt: workflow.Now(ctx)}
	if err := workflow.ExecuteActivity(actx, delivery.ActivityDeadLetter, dl).Get(ctx, nil); err != nil {
		return *state, err
	}
	return *state, temporal.NewNonRetryableApplicationError("delivery "+string(status), string(status), nil, *state)
}

// setStatus records the delivery's status as a search attribute. It is
// called only off the happy path, where one more event is affordable.
func setStatus(ctx workflow.Context, status string) {
	if err := workflow.UpsertTypedSearchAttributes(ctx, delivery.AttrStatus.ValueSet(status)); err != nil {
		workflow.GetLogger(ctx).Warn("upsert status", "error", err)
	}
}
