package api

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/visibility"
)

// runStory is one run of a delivery: when it started, the redrive that
// started it (nil for the first) and its final or current state.
type runStory struct {
	start   time.Time
	redrive *delivery.Redrive
	body    string // the payload the run sends
	// expunged says the run's body is sealed with a key no longer held.
	expunged bool
	res      delivery.Result
}

// deliveryRuns lists the runs of a delivery ID oldest first: the first
// run and one per redrive. Runs that continued as new are left out; the
// run they continued into carries their attempts. current, the latest
// run, is included even if visibility has not caught up with it. created
// is when the first of them all started, continued runs included.
func (s *Server) deliveryRuns(ctx context.Context, id string, current *workflowpb.WorkflowExecutionInfo) (runs []*workflowpb.WorkflowExecutionInfo, created time.Time, err error) {
	runs = []*workflowpb.WorkflowExecutionInfo{current}
	if safeValue.MatchString(id) {
		q := visibility.And(visibility.WorkflowID(id), visibility.WorkflowType(delivery.WorkflowDelivery))
		err = s.eachExecution(ctx, q, func(ex *workflowpb.WorkflowExecutionInfo) {
			if ex.GetExecution().GetRunId() != current.GetExecution().GetRunId() {
				runs = append(runs, ex)
			}
		})
		if err != nil {
			return nil, time.Time{}, err
		}
	}
	slices.SortStableFunc(runs, func(a, b *workflowpb.WorkflowExecutionInfo) int {
		return a.GetStartTime().AsTime().Compare(b.GetStartTime().AsTime())
	})
	created = runs[0].GetStartTime().AsTime()
	runs = slices.DeleteFunc(runs, func(ex *workflowpb.WorkflowExecutionInfo) bool {
		return ex.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW
	})
	return runs, created, nil
}

// readRun reads one run's story: its input's redrive and payload, and its
// state (the result or failure details of a closed run; the state query
// and the pending retry's heartbeat of the running one, desc).
func (s *Server) readRun(ctx context.Context, id string, ex *workflowpb.WorkflowExecutionInfo, desc *workflowservice.DescribeWorkflowExecutionResponse) (runStory, error) {
	runID := ex.GetExecution().GetRunId()
	st := runStory{start: ex.GetStartTime().AsTime()}
	var slot *delivery.Slot
	if req, err := s.runInput(ctx, id, runID); err == nil {
		st.redrive, slot = req.Redrive, req.Slot
		st.body, st.expunged = s.bodyOf(ctx, req)
	} else {
		s.log.Warn("read delivery run input", "delivery_id", id, "run_id", runID, "error", err)
	}
	var err error
	switch {
	case ex.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		st.res, err = s.closedState(ctx, id, runID, ex.GetStatus())
	case runID == desc.GetWorkflowExecutionInfo().GetExecution().GetRunId():
		st.res = s.openState(ctx, id, desc, slot)
	default:
		// Visibility still lists an earlier run as running: it closed
		// since, or the current run could not have started.
		st.res, err = s.closedState(ctx, id, runID, ex.GetStatus())
	}
	return st, err
}

// runInput reads a run's input, the delivery request, from the first
// event of its history (one event fetched, however long the history),
// decoded through the client's data converter, so it reads an encrypted
// payload as well as a plaintext one.
func (s *Server) runInput(ctx context.Context, id, runID string) (delivery.Request, error) {
	var req delivery.Request
	resp, err := s.temporal.WorkflowService().GetWorkflowExecutionHistory(ctx, &workflowservice.GetWorkflowExecutionHistoryRequest{
		Namespace:       s.namespace,
		Execution:       &commonpb.WorkflowExecution{WorkflowId: id, RunId: runID},
		MaximumPageSize: 1,
	})
	if err != nil {
		return req, fmt.Errorf("read history of run %s: %w", runID, err)
	}
	events := resp.GetHistory().GetEvents()
	if len(events) == 0 || events[0].GetWorkflowExecutionStartedEventAttributes() == nil {
		return req, fmt.Errorf("run %s: no start event", runID)
	}
	if err := s.dc.FromPayloads(events[0].GetWorkflowExecutionStartedEventAttributes().GetInput(), &req); err != nil {
		return req, fmt.Errorf("decode input of run %s: %w", runID, err)
	}
	return req, nil
}

// tell composes the delivery's story from its runs, oldest first: one
// timeline of every run's attempts, each redrive between the runs it
// separates; the current (last) run's status and next attempt.
func tell(runs []runStory) DeliveryView {
	out := DeliveryView{Runs: len(runs), Timeline: []wire.TimelineEntry{}}
	if len(runs) == 0 {
		return out
	}
	out.CreatedAt = runs[0].start
	var last delivery.Attempt
	for i, r := range runs {
		n := i + 1
		if r.redrive != nil {
			out.Timeline = append(out.Timeline, redriveEntry(n, r.redrive))
		}
		for _, a := range r.res.Attempts {
			out.Timeline = append(out.Timeline, attemptEntry(n, a))
			last = a
		}
		out.Attempts += len(r.res.Attempts)
	}
	current := runs[len(runs)-1]
	out.Status, out.Redrive = wire.DeliveryStatus(current.res.Status), redriveOut(current.redrive)
	if current.expunged && out.Status != wire.DeliveryStatusDelivered {
		out.Status = wire.DeliveryStatusExpunged
	}
	out.PayloadExpunged = current.expunged
	if json.Valid([]byte(current.body)) {
		out.Payload = json.RawMessage(current.body)
	}
	if last.Number > 0 {
		out.LastStatus, out.LastError = last.Status, last.ErrorClass
	}
	if out.Status == wire.DeliveryStatusPending {
		if at, reason := nextAttempt(current.res); !at.IsZero() {
			out.NextAttemptAt, out.WaitReason = at, reason
		}
	}
	return out
}

// nextAttempt is when a pending run tries next and why it waits that
// long: the deferral it is waiting out (the endpoint's circuit or
// switch), else the delay its latest attempt chose (the schedule or
// Retry-After). The workflow clears a deferral once its wait is over, so
// the two never disagree with the timeline.
func nextAttempt(res delivery.Result) (time.Time, string) {
	if !res.WaitUntil.IsZero() {
		return res.WaitUntil, res.WaitReason
	}
	last := res.Last()
	return last.NextAttempt, last.DelayReason
}
