package visibility

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// fakeReader answers count and list queries over one set of start times,
// understanding "AND StartTime < '...'".
type fakeReader struct {
	starts  []time.Time
	queries atomic.Int32
}

func (f *fakeReader) match(query string) []time.Time {
	f.queries.Add(1)
	_, before, _ := strings.Cut(query, " AND StartTime < '")
	var out []time.Time
	for _, s := range f.starts {
		if before != "" {
			limit, err := time.Parse(time.RFC3339Nano, strings.TrimSuffix(before, "'"))
			if err != nil {
				panic(err)
			}
			if !s.Before(limit) {
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

func (f *fakeReader) CountWorkflow(_ context.Context, req *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error) {
	return &workflowservice.CountWorkflowExecutionsResponse{Count: int64(len(f.match(req.GetQuery())))}, nil
}

func (f *fakeReader) ListWorkflow(_ context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	resp := &workflowservice.ListWorkflowExecutionsResponse{}
	for _, s := range f.match(req.GetQuery()) {
		resp.Executions = append(resp.Executions, &workflowpb.WorkflowExecutionInfo{StartTime: timestamppb.New(s)})
	}
	return resp, nil
}

var now = time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)

// spread returns n start times, the oldest oldest ago.
func spread(n int, oldest time.Duration) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = now.Add(-oldest + oldest/time.Duration(n)*time.Duration(i))
	}
	return out
}

// Up to the list limit the oldest start is exact; none is the zero time.
func TestOldestLists(t *testing.T) {
	n, got, err := Oldest(context.Background(), &fakeReader{starts: spread(5, 90*time.Second)}, Pending(""), now)
	require.NoError(t, err)
	require.Equal(t, int64(5), n)
	require.Equal(t, now.Add(-90*time.Second), got)

	n, got, err = Oldest(context.Background(), &fakeReader{}, Pending(""), now)
	require.NoError(t, err)
	require.Zero(t, n)
	require.True(t, got.IsZero())
}

// Beyond it the oldest of many executions is found by counting, within 1%
// of its age and erring older, in a few dozen queries.
func TestOldestSearches(t *testing.T) {
	for _, oldest := range []time.Duration{30 * time.Second, 37 * time.Minute, 26 * time.Hour, 40 * 24 * time.Hour} {
		vis := &fakeReader{starts: spread(3000, oldest)}
		n, got, err := Oldest(context.Background(), vis, Pending(""), now)
		require.NoError(t, err)
		require.Equal(t, int64(3000), n)
		want := now.Add(-oldest)
		require.False(t, got.After(want), "errs older: %s vs %s", got, want)
		require.LessOrEqual(t, want.Sub(got), max(time.Second, oldest/100), oldest)
		require.Less(t, vis.queries.Load(), int32(40), oldest)
	}
}

// The queries name the workflow type, running only, and the endpoint when
// one is given.
func TestQueries(t *testing.T) {
	require.Equal(t, "WorkflowType = 'Delivery' AND ExecutionStatus = 'Running'", Pending("").String())
	require.Equal(t, "WorkflowType = 'DeadLetter' AND ExecutionStatus = 'Running' AND HookdEndpointId = 'ep_1'", DeadLetters("ep_1").String())
	require.Equal(t, "WorkflowType = 'Delivery' AND ExecutionStatus = 'Running' AND HookdEndpointId = 'ep_1' AND HookdStatus = 'waiting'", Waiting("ep_1").String())
}
