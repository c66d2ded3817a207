package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// historyLen waits for a workflow to close and counts its history events.
func historyLen(ctx context.Context, c client.Client, workflowID string) (int, error) {
	if err := c.GetWorkflow(ctx, workflowID, "").Get(ctx, nil); err != nil {
		return 0, fmt.Errorf("wait for %s: %w", workflowID, err)
	}
	it := c.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	n := 0
	for it.HasNext() {
		if _, err := it.Next(); err != nil {
			return 0, fmt.Errorf("history of %s: %w", workflowID, err)
		}
		n++
	}
	return n, nil
}

// HistoryResult is the history length of a sample of healthy deliveries.
type HistoryResult struct {
	Sampled  int
	Mean     float64
	Min, Max int
}

// sampleHistory counts the events of up to n of the workflows, spread
// evenly over the list.
func sampleHistory(ctx context.Context, c client.Client, ids []string, n int) (HistoryResult, error) {
	var r HistoryResult
	if n <= 0 || len(ids) == 0 {
		return r, nil
	}
	step := max(len(ids)/n, 1)
	total := 0
	for i := 0; i < len(ids) && r.Sampled < n; i += step {
		k, err := historyLen(ctx, c, ids[i])
		if err != nil {
			return r, err
		}
		if r.Sampled == 0 || k < r.Min {
			r.Min = k
		}
		r.Max = max(r.Max, k)
		total += k
		r.Sampled++
	}
	r.Mean = float64(total) / float64(r.Sampled)
	return r, nil
}

// StartLag is how late delayed starts began, over a phase's workflows:
// Timer from the start's due time (its start plus its first workflow
// task's backoff) to the first workflow task's scheduling, Dispatch from
// that to a worker picking the task up; and the workflows counted by the
// length of their history.
type StartLag struct {
	Timer, Dispatch []time.Duration
	Lengths         map[int]int
}

// startLags reads each workflow's history for StartLag.
func startLags(ctx context.Context, c client.Client, ids []string) (StartLag, error) {
	out := StartLag{Lengths: map[int]int{}}
	for _, id := range ids {
		if err := c.GetWorkflow(ctx, id, "").Get(ctx, nil); err != nil {
			return out, fmt.Errorf("wait for %s: %w", id, err)
		}
		it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		var due, scheduled time.Time
		n := 0
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				return out, fmt.Errorf("history of %s: %w", id, err)
			}
			n++
			switch at := e.GetEventTime().AsTime(); e.GetEventType() {
			case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
				due = at.Add(e.GetWorkflowExecutionStartedEventAttributes().GetFirstWorkflowTaskBackoff().AsDuration())
			case enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
				if scheduled.IsZero() {
					scheduled = at
					out.Timer = append(out.Timer, scheduled.Sub(due))
				}
			case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
				if n == 3 {
					out.Dispatch = append(out.Dispatch, at.Sub(scheduled))
				}
			}
		}
		out.Lengths[n]++
	}
	return out, nil
}

// quantiles writes the p50, p90 and max of ds in milliseconds.
func quantiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return fmt.Sprintf("%.0f / %.0f / %.0f ms", ms(s[len(s)/2]), ms(s[len(s)*9/10]), ms(s[len(s)-1]))
}

// histogram writes counts as "length: count" pairs, shortest first.
func histogram(counts map[int]int) string {
	keys := make([]int, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d: %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}
