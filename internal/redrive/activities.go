package redrive

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

// Temporal is what the activity uses of the Temporal client.
type Temporal interface {
	ListWorkflow(ctx context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error)
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Activities holds the page activity's dependencies.
type Activities struct {
	Temporal Temporal
}

// Heartbeat is a page's progress as its heartbeat carries it: the dead
// letters done, so a retried attempt skips them.
type Heartbeat struct {
	Done []string `json:"done"`
	Progress
}

// Page lists one page of in.Query and signals redrive to each dead letter
// on it, one every 1/in.Rate seconds. A retried attempt lists the page
// again and skips those its heartbeat says are done.
func (a *Activities) Page(ctx context.Context, in PageInput) (PageResult, error) {
	var hb Heartbeat
	if activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &hb)
	}
	resp, err := a.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: in.Query, PageSize: PageSize, NextPageToken: in.Cursor,
	})
	if err != nil {
		return PageResult{}, fmt.Errorf("list dead letters: %w", err)
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
			return PageResult{}, err
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
			return PageResult{}, ctx.Err()
		default:
			activity.GetLogger(ctx).Warn("redrive signal failed", "workflow_id", id, "error", err)
			hb.Failed++
		}
		hb.Done = append(hb.Done, id)
		activity.RecordHeartbeat(ctx, hb)
	}
	return PageResult{Progress: hb.Progress, Next: resp.GetNextPageToken()}, nil
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
func pauseUntil(ctx context.Context, deadline time.Time, hb Heartbeat) error {
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
