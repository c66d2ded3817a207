package workflows_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/workflows"
)

// The job runs page after page until the query has no more, adds up
// their progress, and asks every page but the first to keep the pace.
func TestRedriveJobPagesToTheEnd(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(workflows.RedriveJob, workflow.RegisterOptions{Name: delivery.WorkflowRedriveJob})
	var (
		mu    sync.Mutex
		pages []delivery.RedrivePageInput
	)
	env.RegisterActivityWithOptions(func(_ context.Context, in delivery.RedrivePageInput) (delivery.RedrivePageResult, error) {
		mu.Lock()
		defer mu.Unlock()
		pages = append(pages, in)
		switch string(in.Cursor) {
		case "":
			return delivery.RedrivePageResult{RedriveProgress: delivery.RedriveProgress{Completed: 100}, Next: []byte("2")}, nil
		case "2":
			return delivery.RedrivePageResult{RedriveProgress: delivery.RedriveProgress{Completed: 99, Skipped: 1}, Next: []byte("3")}, nil
		default:
			return delivery.RedrivePageResult{RedriveProgress: delivery.RedriveProgress{Completed: 5, Failed: 1}}, nil
		}
	}, activity.RegisterOptions{Name: delivery.ActivityRedrivePage})
	env.ExecuteWorkflow(workflows.RedriveJob, delivery.RedriveJobInput{Query: "q", Rate: 1000, Total: 206})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var p delivery.RedriveProgress
	require.NoError(t, env.GetWorkflowResult(&p))
	require.Equal(t, delivery.RedriveProgress{Completed: 204, Skipped: 1, Failed: 1}, p)
	require.Len(t, pages, 3)
	require.False(t, pages[0].Wait, "the job's first signal goes at once")
	require.True(t, pages[1].Wait)
	require.True(t, pages[2].Wait)
}
