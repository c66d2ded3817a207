package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/metrics"
	"github.com/hookd/hookd/internal/opevents"
)

// DefaultDeadLetterRetention is how long a dead letter waits for a
// redrive: with the default schedule's longest run it ends within the
// default dedup window (7 days) of its event.
const DefaultDeadLetterRetention = 4 * 24 * time.Hour

// MinDeadLetterWait is the shortest a dead letter waits, even when its
// event's dedup window has nearly run out.
const MinDeadLetterWait = time.Hour

// DeadLetter parks a dead delivery: it signals-with-start the delivery's
// dead-letter workflow, which holds the entry until it is redriven. It
// first emits hookd.delivery.dead_lettered (one per run, by its ID), so
// a try that fails is retried by Temporal until both are done, and a
// retry never signals a dead letter that was already redriven.
func (a *Activities) DeadLetter(ctx context.Context, dl delivery.DeadLetter) error {
	req := dl.Request
	if err := a.emitAbout(ctx, req, func() opevents.Event { return opevents.DeadLetteredEvent(dl) }); err != nil {
		return err
	}
	opts := client.StartWorkflowOptions{
		ID:                    delivery.DeadLetterID(req.DeliveryID),
		TaskQueue:             delivery.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:         fmt.Sprintf("dead letter (%s): %s -> %s", dl.Reason, req.EventType, req.EndpointID),
		TypedSearchAttributes: delivery.DeadLetterSearchAttributes(dl),
		Memo:                  deadLetterMemo(dl),
	}
	params := delivery.DeadLetterParams{
		Retention: a.deadLetterWait(req), DeliveryID: req.DeliveryID, EndpointID: req.EndpointID,
		EventID: req.EventID, EventType: req.EventType, TenantID: req.TenantID, Reason: dl.Reason,
	}
	if _, err := a.temporal.SignalWithStartWorkflow(ctx, opts.ID, delivery.SignalDeadLetter, dl, opts, delivery.WorkflowDeadLetter, params); err != nil {
		return fmt.Errorf("park dead letter %s: %w", req.DeliveryID, err)
	}
	a.metrics.DeliveryEnded(dl.Reason)
	a.log.Warn("delivery dead-lettered", "delivery_id", req.DeliveryID, "endpoint_id", req.EndpointID,
		"event_type", req.EventType, "reason", dl.Reason, "attempts", len(dl.Attempts))
	return nil
}

// deadLetterWait is how long the dead letter of req waits: the dead-letter
// retention, cut to end when its event's dedup window does (its record is
// pruned then, and a re-post of the event would be new), but at least
// MinDeadLetterWait.
func (a *Activities) deadLetterWait(req delivery.Request) time.Duration {
	if a.dedupWindow <= 0 || req.AcceptedAt.IsZero() {
		return a.deadLetterRetention
	}
	left := req.AcceptedAt.Add(a.dedupWindow).Sub(a.now())
	return max(min(a.deadLetterRetention, left), MinDeadLetterWait)
}

// deadLetterMemo is what a dead-letter list shows of how the delivery
// died. If the workflow already runs (the redriven run died again before
// it closed), the signal carries the new entry but the memo stays the
// first death's.
func deadLetterMemo(dl delivery.DeadLetter) map[string]any {
	if len(dl.Attempts) == 0 {
		return nil
	}
	last := dl.Attempts[len(dl.Attempts)-1]
	return map[string]any{delivery.MemoLastStatus: last.Status, delivery.MemoLastError: last.LastError()}
}

// StartRedrive starts a fresh run of a dead delivery with the same delivery
// ID. Only a failed run may be replaced; if a run started at or after the
// redrive exists, an earlier try of this activity started it and the
// redrive is done.
func (a *Activities) StartRedrive(ctx context.Context, req delivery.Request) error {
	// The next run of the delivery ID (a run from before HookdRun counts
	// as the first).
	req.Run = max(req.Run, 1) + 1
	_, err := a.temporal.ExecuteWorkflow(ctx, delivery.StartOptions(req, enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY), delivery.WorkflowDelivery, req)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if err == nil || !errors.As(err, &started) {
		if err != nil {
			a.metrics.Redrive(metrics.RedriveFailed)
			return fmt.Errorf("redrive %s: %w", req.DeliveryID, err)
		}
		a.metrics.Redrive(metrics.RedriveStarted)
		a.log.Info("delivery redriven", "delivery_id", req.DeliveryID, "by", req.Redrive.By)
		return a.emitRedriven(ctx, req)
	}
	desc, err := a.temporal.DescribeWorkflowExecution(ctx, req.DeliveryID, "")
	if err != nil {
		return fmt.Errorf("redrive %s: describe current run: %w", req.DeliveryID, err)
	}
	info := desc.GetWorkflowExecutionInfo()
	switch {
	case req.Redrive != nil && !info.GetStartTime().AsTime().Before(req.Redrive.At):
		return a.emitRedriven(ctx, req) // started by an earlier try of this activity
	case info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		a.metrics.Redrive(metrics.RedriveSkipped)
		a.log.Warn("redrive skipped: delivery already completed", "delivery_id", req.DeliveryID)
		return nil
	default:
		// The dead run was still closing when the start was refused (it
		// signals its dead letter just before it fails): try again.
		return fmt.Errorf("redrive %s: the previous run is still closing", req.DeliveryID)
	}
}

// emitRedriven emits hookd.dead_letter.redriven for the run the redrive
// started; a failure fails the activity, whose retry finds the run
// started and emits again under the same ID.
func (a *Activities) emitRedriven(ctx context.Context, req delivery.Request) error {
	return a.emitAbout(ctx, req, func() opevents.Event { return opevents.RedrivenEvent(req) })
}

// emitAbout emits the event ev builds about req's delivery, unless its
// transitions are not announced (opevents.Quiet) or events are off.
func (a *Activities) emitAbout(ctx context.Context, req delivery.Request, ev func() opevents.Event) error {
	if a.events == nil || opevents.Quiet(req) {
		return nil
	}
	if err := a.events.Emit(ctx, ev()); err != nil {
		return fmt.Errorf("emit event about %s: %w", req.DeliveryID, err)
	}
	return nil
}

// DeliveryRecovered emits hookd.delivery.recovered for a delivery
// delivered after failing. The workflow runs it as a regular activity,
// retried until it succeeds; the event's ID (delivery ID and run) makes
// a retry a duplicate.
func (a *Activities) DeliveryRecovered(ctx context.Context, in delivery.Recovered) error {
	return a.emitAbout(ctx, in.Request, func() opevents.Event {
		return opevents.RecoveredEvent(in.Request, in.Attempts, in.Status, in.At)
	})
}
