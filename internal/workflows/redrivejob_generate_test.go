//go:build histories

package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/workflows"
)

// TestGenerateRedriveJobHistory records a bulk redrive job of two pages,
// the second kept to the pace:
//
//	go test -tags histories ./internal/workflows/ -run TestGenerateRedriveJobHistory -update
func TestGenerateRedriveJobHistory(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata/*.json")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ts := newHistoryServer(ctx, t)
	c := ts.GetDefaultClient()
	ts.NewWorker(delivery.TaskQueue, func(r worker.Registry) {
		workflows.Register(r)
		r.RegisterActivityWithOptions(func(_ context.Context, in delivery.RedrivePageInput) (delivery.RedrivePageResult, error) {
			if len(in.Cursor) == 0 {
				return delivery.RedrivePageResult{RedriveProgress: delivery.RedriveProgress{Completed: 100}, Next: []byte("2")}, nil
			}
			return delivery.RedrivePageResult{RedriveProgress: delivery.RedriveProgress{Completed: 3, Skipped: 1}}, nil
		}, activity.RegisterOptions{Name: delivery.ActivityRedrivePage})
	})
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "redrive_histories", TaskQueue: delivery.TaskQueue},
		delivery.WorkflowRedriveJob, delivery.RedriveJobInput{
			Query: "WorkflowType = 'DeadLetter'", Rate: 50, Total: 104,
			Signal: delivery.RedriveSignal{By: "histories_test", Reason: "receiver fixed"},
		})
	require.NoError(t, err)
	var p delivery.RedriveProgress
	require.NoError(t, run.Get(ctx, &p))
	require.Equal(t, delivery.RedriveProgress{Completed: 103, Skipped: 1}, p)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histRedriveJob)
}
