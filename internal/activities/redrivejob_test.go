package activities

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	"github.com/hookd/hookd/internal/delivery"
)

// fakeRedriveTemporal lists the executions once and records the signals.
type fakeRedriveTemporal struct {
	ids  []string
	gone map[string]bool

	mu  sync.Mutex
	got []string
	at  []time.Time
}

func (f *fakeRedriveTemporal) ListWorkflow(context.Context, *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	resp := &workflowservice.ListWorkflowExecutionsResponse{}
	for _, id := range f.ids {
		resp.Executions = append(resp.Executions, &workflowpb.WorkflowExecutionInfo{Execution: &commonpb.WorkflowExecution{WorkflowId: id}})
	}
	return resp, nil
}

func (f *fakeRedriveTemporal) SignalWorkflow(_ context.Context, id, _, name string, _ any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if name != delivery.SignalRedrive {
		panic(name)
	}
	f.got, f.at = append(f.got, id), append(f.at, time.Now())
	if f.gone[id] {
		return serviceerror.NewNotFound("closed")
	}
	return nil
}

// A page signals each dead letter once, 1/rate apart, counts those that
// closed meanwhile as skipped, and a retried attempt skips what its
// heartbeat says is done.
func TestRedrivePagePacesAndResumes(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	f := &fakeRedriveTemporal{ids: []string{"dead_a", "dead_b", "dead_c", "dead_d"}, gone: map[string]bool{"dead_c": true}}
	env.RegisterActivityWithOptions((&Redrive{Temporal: f}).Page, activity.RegisterOptions{Name: delivery.ActivityRedrivePage})
	start := time.Now()
	v, err := env.ExecuteActivity(delivery.ActivityRedrivePage, delivery.RedrivePageInput{Query: "q", Rate: 20})
	require.NoError(t, err)
	var res delivery.RedrivePageResult
	require.NoError(t, v.Get(&res))
	require.Equal(t, delivery.RedriveProgress{Completed: 3, Skipped: 1}, res.RedriveProgress)
	require.Equal(t, f.ids, f.got)
	require.GreaterOrEqual(t, time.Since(start), 140*time.Millisecond, "4 signals at 20/s span 150 ms")
	// Paced by deadline: a late signal may be followed sooner, but none
	// goes ahead of its place in the schedule (50 ms apart).
	for i := 1; i < len(f.at); i++ {
		require.GreaterOrEqual(t, f.at[i].Sub(f.at[0]), time.Duration(i)*50*time.Millisecond-5*time.Millisecond, "signal %d", i)
	}

	// A retry after a crash: two were done.
	f.got = nil
	env = s.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions((&Redrive{Temporal: f}).Page, activity.RegisterOptions{Name: delivery.ActivityRedrivePage})
	env.SetHeartbeatDetails(delivery.RedriveHeartbeat{Done: []string{"dead_a", "dead_b"}, RedriveProgress: delivery.RedriveProgress{Completed: 2}})
	v, err = env.ExecuteActivity(delivery.ActivityRedrivePage, delivery.RedrivePageInput{Query: "q", Rate: 20})
	require.NoError(t, err)
	require.NoError(t, v.Get(&res))
	require.Equal(t, []string{"dead_c", "dead_d"}, f.got, "the done are not signalled again")
	require.Equal(t, delivery.RedriveProgress{Completed: 3, Skipped: 1}, res.RedriveProgress, "the page's count stays true across the retry")
}
