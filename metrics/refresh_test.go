package metrics

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/circuit"
	"github.com/hookd/hookd/delivery"
)

// fakeVisibility answers count and list queries over running executions
// of two workflow types, understanding "AND StartTime < '...'".
type fakeVisibility struct {
	starts  map[string][]time.Time // by workflow type
	queries atomic.Int32
}

func (f *fakeVisibility) match(query string) []time.Time {
	f.queries.Add(1)
	base, before, _ := strings.Cut(query, " AND StartTime < '")
	var out []time.Time
	for typ, starts := range f.starts {
		if !strings.Contains(base, fmt.Sprintf("WorkflowType = '%s'", typ)) {
			continue
		}
		for _, s := range starts {
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
	}
	return out
}

func (f *fakeVisibility) CountWorkflow(_ context.Context, req *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error) {
	return &workflowservice.CountWorkflowExecutionsResponse{Count: int64(len(f.match(req.GetQuery())))}, nil
}

func (f *fakeVisibility) ListWorkflow(_ context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	resp := &workflowservice.ListWorkflowExecutionsResponse{}
	for _, s := range f.match(req.GetQuery()) {
		resp.Executions = append(resp.Executions, &workflowpb.WorkflowExecutionInfo{StartTime: timestamppb.New(s)})
	}
	return resp, nil
}

type fakeCircuits map[string]circuit.State

func (f fakeCircuits) CircuitStates(context.Context) (map[string]circuit.State, error) { return f, nil }

var now = time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)

// spread returns n start times, the oldest oldest ago.
func spread(n int, oldest time.Duration) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = now.Add(-oldest + oldest/time.Duration(n)*time.Duration(i))
	}
	return out
}

func TestRefresh(t *testing.T) {
	m := New(Config{})
	vis := &fakeVisibility{starts: map[string][]time.Time{
		delivery.WorkflowDelivery:   spread(5, 90*time.Second),
		delivery.WorkflowDeadLetter: spread(3, 2*time.Hour),
	}}
	src := Sources{Temporal: vis, Circuits: fakeCircuits{"ep_a": circuit.Open, "ep_b": circuit.Closed, "ep_c": circuit.HalfOpen}, Now: func() time.Time { return now }}
	require.NoError(t, m.Refresh(context.Background(), src))
	fams := scrape(t, m)
	require.Equal(t, float64(3), value(fams, "hookd_dead_letters"))
	require.Equal(t, float64(7200), value(fams, "hookd_dead_letter_oldest_age_seconds"))
	require.Equal(t, float64(90), value(fams, "hookd_oldest_pending_delivery_age_seconds"))
	require.Equal(t, float64(2), value(fams, "hookd_circuit_state", "endpoint_id=ep_a"))
	require.Equal(t, float64(1), value(fams, "hookd_circuit_state", "endpoint_id=ep_c"))
	require.Equal(t, float64(0), value(fams, "hookd_circuit_state", "endpoint_id=ep_b"))
	require.Equal(t, float64(1), value(fams, "hookd_circuits", "state=open"))

	// Deleted endpoints and drained queues go back to zero.
	vis.starts = map[string][]time.Time{}
	src.Circuits = fakeCircuits{"ep_b": circuit.Closed}
	require.NoError(t, m.Refresh(context.Background(), src))
	fams = scrape(t, m)
	require.Equal(t, float64(0), value(fams, "hookd_dead_letters"))
	require.Equal(t, float64(0), value(fams, "hookd_oldest_pending_delivery_age_seconds"))
	require.Equal(t, float64(-1), value(fams, "hookd_circuit_state", "endpoint_id=ep_a"))
	require.Equal(t, float64(0), value(fams, "hookd_circuits", "state=open"))
}

// TestOldestStartSearches finds the oldest of many executions by counting,
// within 1% of its age, in a few dozen queries.
func TestOldestStartSearches(t *testing.T) {
	for _, oldest := range []time.Duration{30 * time.Second, 37 * time.Minute, 26 * time.Hour, 40 * 24 * time.Hour} {
		vis := &fakeVisibility{starts: map[string][]time.Time{delivery.WorkflowDelivery: spread(3000, oldest)}}
		n, got, err := OldestStart(context.Background(), vis, pendingQuery, now)
		require.NoError(t, err)
		require.Equal(t, int64(3000), n)
		want := now.Add(-oldest)
		require.False(t, got.After(want), "errs older: %s vs %s", got, want)
		require.LessOrEqual(t, want.Sub(got), max(time.Second, oldest/100), oldest)
		require.Less(t, vis.queries.Load(), int32(40), oldest)
	}
}
