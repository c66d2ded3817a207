package visibility

import (
	"context"
	"time"

	"go.temporal.io/api/workflowservice/v1"
)

// listLimit is the most executions Oldest lists; above it, it searches by
// counting.
const listLimit = 1000

// maxSearch is how far back Oldest looks.
const maxSearch = 2 * 365 * 24 * time.Hour

// Oldest counts the executions matching query and finds the start of the
// oldest (zero if none). Up to listLimit it lists them; beyond, it narrows
// the time down with counts of "StartTime < t" — about twenty cheap
// queries, instead of listing every execution — to within 1% of its age
// (at least a second), erring older. Its cost does not grow with the
// number of executions: the metrics gauges and the API's endpoint health
// and dead-letter summary all read through it.
func Oldest(ctx context.Context, vis Reader, query Query, now time.Time) (int64, time.Time, error) {
	n, err := Count(ctx, vis, query)
	if err != nil || n == 0 {
		return n, time.Time{}, err
	}
	if n <= listLimit {
		resp, err := vis.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query.String(), PageSize: listLimit})
		if err != nil {
			return 0, time.Time{}, err
		}
		var oldest time.Time
		for _, ex := range resp.GetExecutions() {
			if t := ex.GetStartTime().AsTime(); oldest.IsZero() || t.Before(oldest) {
				oldest = t
			}
		}
		return n, oldest, nil
	}
	startedBefore := func(t time.Time) (bool, error) {
		c, err := Count(ctx, vis, And(query, Started(Before, t)))
		return c > 0, err
	}
	// Find a span [lo, hi) holding the oldest start by doubling back.
	lo, hi, step := now.Add(-time.Minute), now, time.Minute
	for step < maxSearch {
		some, err := startedBefore(lo)
		if err != nil {
			return 0, time.Time{}, err
		}
		if !some {
			break
		}
		hi, step = lo, 2*step
		lo = now.Add(-step)
	}
	for hi.Sub(lo) > max(time.Second, now.Sub(hi)/100) {
		mid := lo.Add(hi.Sub(lo) / 2)
		some, err := startedBefore(mid)
		if err != nil {
			return 0, time.Time{}, err
		}
		if some {
			hi = mid
		} else {
			lo = mid
		}
	}
	return n, lo, nil
}

// Count counts the executions matching query.
func Count(ctx context.Context, vis Reader, query Query) (int64, error) {
	resp, err := vis.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: query.String()})
	if err != nil {
		return 0, err
	}
	return resp.GetCount(), nil
}
