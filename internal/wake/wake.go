// Package wake tells the deliveries waiting on an endpoint (its circuit
// open or its switch off) to try again now, oldest first, without hitting
// a receiver that just came back with its whole backlog in one instant.
// A Waker starts the endpoint's wake-up workflow (one per endpoint at a
// time: a second recover joins it), for an operator's recover or enable
// (the API) and a circuit that closes (the activities) alike. The
// workflow's activities wake the backlog a page at a time (Page): a
// backlog of up to Immediate is signalled, each delivery at its slot of a
// short spread; a larger one gets recover updates, a bounded number
// outstanding, each done once its delivery has made its attempt.
package wake

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/visibility"
)

// How the waiting deliveries are spread: at most Burst at a time, the
// groups spaced evenly over Window, so every one is attempted within a few
// seconds.
const (
	Burst  = 10
	Window = 4 * time.Second
)

// Temporal is what wake uses of Temporal (client.Client).
type Temporal interface {
	ListWorkflow(ctx context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error)
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// QueryFor finds the deliveries a wake-up with sig wakes at now: those
// waiting on the endpoint's circuit or switch (visibility.Waiting), and
// with sig.Slots those whose start is still delayed to their rate limit's
// slot too (visibility.WaitingOrDelayed).
func QueryFor(endpointID string, sig delivery.RecoverSignal, now time.Time) visibility.Query {
	if !sig.Slots {
		return visibility.Waiting(endpointID)
	}
	return visibility.WaitingOrDelayed(endpointID, now)
}

// Immediate is the largest backlog an operator's recover signals at once,
// each delivery at its slot of Window: about the rate hookd drains at on
// two cores. A larger one is woken at the drain's pace instead
// (Backlog.Pace): signalled all within seconds, 100,000 woken deliveries
// crowd out their own attempts (docs/performance.md).
const Immediate = 500

// Settle is how long after a wake-up's first list its second look
// lists again (delivery.WakeSettle).
const Settle = delivery.WakeSettle

// Backlog is an endpoint's waiting deliveries, oldest first, as much of
// each as a wake-up needs.
type Backlog []run

// List returns endpointID's waiting deliveries, oldest first.
func List(ctx context.Context, c Temporal, endpointID string) (Backlog, error) {
	return ListAfter(ctx, c, endpointID, nil)
}

// ListAfter returns endpointID's waiting deliveries after cursor (all if
// nil), oldest first: ordered by start, then workflow ID.
func ListAfter(ctx context.Context, c Temporal, endpointID string, cursor *delivery.WakeCursor) (Backlog, error) {
	return listAfter(ctx, c, visibility.Waiting(endpointID), cursor)
}

// listAfter returns the deliveries query finds after cursor (all if
// nil), oldest first.
func listAfter(ctx context.Context, c Temporal, query visibility.Query, cursor *delivery.WakeCursor) (Backlog, error) {
	if cursor != nil {
		query = visibility.And(query, visibility.Started(visibility.NotBefore, cursor.Started))
	}
	// Only what the wake-up needs is kept: a backlog of 100,000 listed
	// whole (search attributes, memo) would hold hundreds of MB.
	var waiting Backlog
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query.String(), PageSize: 1000, NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("list waiting deliveries: %w", err)
		}
		for _, ex := range resp.GetExecutions() {
			if r := runOf(ex); cursor == nil || r.after(*cursor) {
				waiting = append(waiting, r)
			}
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	slices.SortFunc(waiting, func(a, b run) int {
		return cmp.Or(a.started.Compare(b.started), cmp.Compare(a.workflowID, b.workflowID))
	})
	return waiting, nil
}

// Signal signals recover to every delivery of the backlog, each with sig
// and its slot after at as NotBefore, and returns how many it reached. A
// delivery that ended meanwhile is skipped; any other failure stops it,
// with the count so far.
func (b Backlog) Signal(ctx context.Context, c Temporal, sig delivery.RecoverSignal, at time.Time) (int, error) {
	woken := 0
	for i, r := range b {
		sig.NotBefore = at.Add(Slot(i, len(b)))
		err := c.SignalWorkflow(ctx, r.workflowID, r.runID, delivery.SignalRecover, sig)
		var nf *serviceerror.NotFound
		switch {
		case errors.As(err, &nf):
			continue
		case err != nil:
			return woken, fmt.Errorf("signal recover to %s: %w", r.workflowID, err)
		}
		woken++
	}
	return woken, nil
}

// run is a waiting delivery's run, as much of it as a wake-up needs.
type run struct {
	workflowID, runID string
	started           time.Time
}

// after reports whether r comes after the cursor, oldest first.
func (r run) after(c delivery.WakeCursor) bool {
	return cmp.Or(r.started.Compare(c.Started), cmp.Compare(r.workflowID, c.WorkflowID)) > 0
}

// cursor is the position of r in a pass.
func (r run) cursor() *delivery.WakeCursor {
	return &delivery.WakeCursor{Started: r.started, WorkflowID: r.workflowID}
}

// runOf keeps of a listed execution what its signal and its order need.
func runOf(ex *workflowpb.WorkflowExecutionInfo) run {
	return run{workflowID: ex.GetExecution().GetWorkflowId(), runID: ex.GetExecution().GetRunId(), started: ex.GetStartTime().AsTime()}
}

// Slot is when, after the wake, the i-th of n waiting deliveries tries
// again: groups of Burst spaced evenly over Window.
func Slot(i, n int) time.Duration {
	groups := (n + Burst - 1) / Burst
	if groups <= 1 {
		return 0
	}
	return time.Duration(i/Burst) * (Window / time.Duration(groups))
}

// Spread is when the last of n woken deliveries tries again.
func Spread(n int) time.Duration {
	if n == 0 {
		return 0
	}
	return Slot(n-1, n)
}
