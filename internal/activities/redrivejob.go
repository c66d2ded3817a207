package activities

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"

	"github.com/hookd/hookd/internal/delivery"
)

// RedriveTemporal is what the RedrivePage activity uses of the Temporal
// client.
type RedriveTemporal interface {
	ListWorkflow(ctx context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error)
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Redrive holds the RedrivePage activity's dependencies: a bulk redrive
// job's pages (delivery.RedriveJobInput). It is apart from Activities,
// whose dependencies it does not need.
type Redrive struct {
	Temporal RedriveTemporal
}

// Page lists one page of in.Query and signals redrive to each dead letter
// on it, one every 1/in.Rate seconds. A retried attempt lists the page
// again and skips those its heartbeat says are done.
func (a *Redrive) Page(ctx context.Context, in delivery.RedrivePageInput) (delivery.RedrivePageResult, error) {
	var hb delivery.RedriveHeartbeat
	if activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &hb)
	}
	resp, err := a.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: in.Query, PageSize: delivery.RedrivePageSize, NextPageToken: in.Cursor,
	})
	if err != nil {
		return delivery.RedrivePageResult{}, fmt.Errorf("list dead letters: %w", err)
	}
	// Signal i is due at next: one interval after the one before it (after
	// the page starts for the first, unless it is the job's first), never
	// earlier, so a slow signal does not slow the rate and a stall does
	// not make a burst.
	interval := time.Duration(float64(time.Second) / in.Rate)
	next := time.Now()
	if in.Wait || len(hb.Done) > 0 {
		next = next.Add(interval)
	}
	for _, ex := range resp.GetExecutions() {
		id := ex.GetExecution().GetWorkflowId()
		if slices.Contains(hb.Done, id) {
			continue
		}
		if err := pauseUntil(ctx, next, hb); err != nil {
			return delivery.RedrivePageResult{}, err
		}
		next = later(next.Add(interval), time.Now())
		err := a.Temporal.SignalWorkflow(ctx, id, "", delivery.SignalRedrive, in.Signal)
		var gone *serviceerror.NotFound
		switch {
		case err == nil:
			hb.Completed++
		case errors.As(err, &gone):
			hb.Skipped++ // redriven or expired since it was listed
		case ctx.Err() != nil:
			return delivery.RedrivePageResult{}, ctx.Err()
		default:
			activity.GetLogger(ctx).Warn("redrive signal failed", "workflow_id", id, "error", err)
			hb.Failed++
		}
		hb.Done = append(hb.Done, id)
		activity.RecordHeartbeat(ctx, hb)
	}
	return delivery.RedrivePageResult{RedriveProgress: hb.RedriveProgress, Next: resp.GetNextPageToken()}, nil
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// pauseUntil waits until deadline, heartbeating at least every 3 s, or
// fails when ctx ends.
func pauseUntil(ctx context.Context, deadline time.Time, hb delivery.RedriveHeartbeat) error {
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(left, 3*time.Second)):
			activity.RecordHeartbeat(ctx, hb)
		}
	}
}
