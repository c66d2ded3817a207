package bench

import (
	"context"
	"fmt"

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
