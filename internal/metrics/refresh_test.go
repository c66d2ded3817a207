package metrics

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
)

// fakeVisibility answers count and list queries over running executions
// of two workflow types: few enough that visibility.Oldest lists them.
type fakeVisibility struct {
	starts map[string][]time.Time // by workflow type
}

func (f *fakeVisibility) match(query string) []time.Time {
	var out []time.Time
	for typ, starts := range f.starts {
		if strings.Contains(query, fmt.Sprintf("WorkflowType = '%s'", typ)) {
			out = append(out, starts...)
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
