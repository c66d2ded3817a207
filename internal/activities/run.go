package activities

import (
	"context"
	"log/slog"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/hookd/hookd/internal/delivery"
)

// FirstAttempt makes a delivery's first attempt. The workflow runs it as a
// local activity: the fast path that costs no extra history events. It
// reports the outcome as a value; the workflow decides what follows.
func (a *Activities) FirstAttempt(ctx context.Context, req delivery.Request) (delivery.Attempt, error) {
	return a.outcomes.once(ctx, a.now(), func() delivery.Attempt {
		at := a.attempt(ctx, req, 1, req.Slot) // the slot ingest reserved, if any
		a.logAttempt(ctx, req, at)
		return at
	}), nil
}

// WakeAttempt makes the attempt a deferred delivery tries when its wait
// ends, numbered after in.Prior. Like FirstAttempt it runs as a local
// activity and reports the outcome as a value: a wake-up that finds the
// endpoint open delivers without a trip through the task queue, and one
// that finds it still closed is deferred again without a write.
func (a *Activities) WakeAttempt(ctx context.Context, in delivery.RetryInput) (delivery.Attempt, error) {
	return a.outcomes.once(ctx, a.now(), func() delivery.Attempt {
		at := a.attempt(ctx, in.Request, len(in.Prior)+1, in.Slot)
		a.logAttempt(ctx, in.Request, at)
		return at
	}), nil
}

// Retry makes the retries of a delivery. Temporal retries it on the
// schedule: each retryable failure sets NextRetryDelay from the endpoint's
// schedule (with jitter) or Retry-After. Server-side retries write no
// history, so the timeline travels in heartbeat details between attempts
// and in the result or final error's details (RunRetry).
func (a *Activities) Retry(ctx context.Context, in delivery.RetryInput) (delivery.Result, error) {
	return RunRetry(ctx, in, func(n int) delivery.Attempt {
		at := a.attempt(ctx, in.Request, n, nil)
		a.logAttempt(ctx, in.Request, at)
		return at
	})
}

// RunRetry is the Retry activity around one attempt that attempt makes
// (number n): it carries the timeline from the prior attempts and the
// last heartbeat, and reports what the attempt means (delivery.Judge) as
// Temporal's retries need it: a result, a retryable error with the next
// delay, or a non-retryable one, each with the timeline. Exported so a
// fake attempt (the workflow tests') runs the real protocol.
func RunRetry(ctx context.Context, in delivery.RetryInput, attempt func(n int) delivery.Attempt) (delivery.Result, error) {
	timeline := in.Prior
	if activity.HasHeartbeatDetails(ctx) {
		var saved []delivery.Attempt
		if err := activity.GetHeartbeatDetails(ctx, &saved); err == nil && len(saved) > len(timeline) {
			timeline = saved
		}
	}
	at := attempt(len(in.Prior) + int(activity.GetInfo(ctx).Attempt))
	verdict := delivery.Judge(at, in.Request.Attempts())
	if verdict == delivery.VerdictExpunged {
		return delivery.Result{}, temporal.NewNonRetryableApplicationError(at.Error, delivery.ErrTypeExpunged, nil, timeline)
	}
	if verdict == delivery.VerdictWait {
		// Nothing was sent: complete, so this attempt is not counted, and
		// let the workflow wait.
		return delivery.Result{Status: delivery.StatusPending, Attempts: timeline, WaitUntil: at.NextAttempt, WaitReason: at.DelayReason, Slot: at.Slot}, nil
	}
	timeline = append(timeline, at)
	switch verdict {
	case delivery.VerdictDelivered:
		return delivery.Result{Status: delivery.StatusDelivered, Attempts: timeline}, nil
	case delivery.VerdictFailed:
		return delivery.Result{}, temporal.NewNonRetryableApplicationError(at.ErrorClass, delivery.ErrTypePermanent, nil, timeline)
	case delivery.VerdictExhausted:
		return delivery.Result{}, temporal.NewNonRetryableApplicationError(at.ErrorClass, delivery.ErrTypeExhausted, nil, timeline)
	}
	activity.RecordHeartbeat(ctx, timeline)
	return delivery.Result{}, temporal.NewApplicationErrorWithOptions(at.ErrorClass, delivery.ErrTypeRetryable, temporal.ApplicationErrorOptions{
		NextRetryDelay: at.NextDelay,
		Details:        []any{timeline},
	})
}

func (a *Activities) logAttempt(ctx context.Context, req delivery.Request, at delivery.Attempt) {
	level := slog.LevelInfo
	if at.Outcome == delivery.OutcomeSuccess || at.Outcome == delivery.OutcomeDeferred {
		level = slog.LevelDebug // the happy path and waiting stay quiet
	}
	a.log.Log(ctx, level, "delivery attempt",
		"delivery_id", req.DeliveryID, "endpoint_id", req.EndpointID, "event_type", req.EventType,
		"attempt", at.Number, "outcome", at.Outcome, "status", at.Status, "error_class", at.ErrorClass,
		"duration", at.Duration, "next_delay", at.NextDelay)
}
