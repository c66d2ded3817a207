package redrive

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

// The job runs page after page until the query has no more, adds up
// their progress, and asks every page but the first to keep the pace.
func TestJobPagesToTheEnd(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(Job, workflowRegisterOptions())
	var (
		mu    sync.Mutex
		pages []PageInput
	)
	env.RegisterActivityWithOptions(func(_ context.Context, in PageInput) (PageResult, error) {
		mu.Lock()
		defer mu.Unlock()
		pages = append(pages, in)
		switch string(in.Cursor) {
		case "":
			return PageResult{Progress: Progress{Completed: 100}, Next: []byte("2")}, nil
		case "2":
			return PageResult{Progress: Progress{Completed: 99, Skipped: 1}, Next: []byte("3")}, nil
		default:
			return PageResult{Progress: Progress{Completed: 5, Failed: 1}}, nil
		}
	}, activityRegisterOptions())
	env.ExecuteWorkflow(Job, JobInput{Query: "q", Rate: 1000, Total: 206})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var p Progress
	require.NoError(t, env.GetWorkflowResult(&p))
	require.Equal(t, Progress{Completed: 204, Skipped: 1, Failed: 1}, p)
	require.Len(t, pages, 3)
	require.False(t, pages[0].Wait, "the job's first signal goes at once")
	require.True(t, pages[1].Wait)
	require.True(t, pages[2].Wait)
}

// fakeTemporal lists the executions once and records the signals.
type fakeTemporal struct {
	ids  []string
	gone map[string]bool

	mu  sync.Mutex
	got []string
	at  []time.Time
}

func (f *fakeTemporal) ListWorkflow(context.Context, *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	resp := &workflowservice.ListWorkflowExecutionsResponse{}
	for _, id := range f.ids {
		resp.Executions = append(resp.Executions, &workflowpb.WorkflowExecutionInfo{Execution: &commonpb.WorkflowExecution{WorkflowId: id}})
	}
	return resp, nil
}

func (f *fakeTemporal) SignalWorkflow(_ context.Context, id, _, name string, _ any) error {
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
func TestPagePacesAndResumes(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	f := &fakeTemporal{ids: []string{"dead_a", "dead_b", "dead_c", "dead_d"}, gone: map[string]bool{"dead_c": true}}
	env.RegisterActivityWithOptions((&Activities{Temporal: f}).Page, activityRegisterOptions())
	start := time.Now()
	v, err := env.ExecuteActivity(ActivityPage, PageInput{Query: "q", Rate: 20})
	require.NoError(t, err)
	var res PageResult
	require.NoError(t, v.Get(&res))
	require.Equal(t, Progress{Completed: 3, Skipped: 1}, res.Progress)
	require.Equal(t, f.ids, f.got)
	require.GreaterOrEqual(t, time.Since(start), 140*time.Millisecond, "4 signals at 20/s span 150 ms")
	for i := 1; i < len(f.at); i++ {
		require.GreaterOrEqual(t, f.at[i].Sub(f.at[i-1]), 40*time.Millisecond)
	}

	// A retry after a crash: two were done.
	f.got = nil
	env = s.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions((&Activities{Temporal: f}).Page, activityRegisterOptions())
	env.SetHeartbeatDetails(Heartbeat{Done: []string{"dead_a", "dead_b"}, Progress: Progress{Completed: 2}})
	v, err = env.ExecuteActivity(ActivityPage, PageInput{Query: "q", Rate: 20})
	require.NoError(t, err)
	require.NoError(t, v.Get(&res))
	require.Equal(t, []string{"dead_c", "dead_d"}, f.got, "the done are not signalled again")
	require.Equal(t, Progress{Completed: 3, Skipped: 1}, res.Progress, "the page's count stays true across the retry")
}

func activityRegisterOptions() activity.RegisterOptions {
	return activity.RegisterOptions{Name: ActivityPage}
}
