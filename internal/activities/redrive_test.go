package activities

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/hookd/hookd/internal/delivery"
)

// redriveTemporal answers StartRedrive's start and describe calls.
type redriveTemporal struct {
	client.Client
	startErr error
	current  *workflowpb.WorkflowExecutionInfo // the run Describe finds
	descErr  error
	starts   []client.StartWorkflowOptions
}

func (f *redriveTemporal) ExecuteWorkflow(_ context.Context, opts client.StartWorkflowOptions, _ any, _ ...any) (client.WorkflowRun, error) {
	f.starts = append(f.starts, opts)
	return nil, f.startErr
}

func (f *redriveTemporal) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	if f.descErr != nil {
		return nil, f.descErr
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: f.current}, nil
}

// StartRedrive replaces only a failed run. A refused start is fine when
// the current run was started by this redrive (an earlier try of the
// activity) or already completed (the delivery arrived: skipped), and
// retried while the dead run is still closing.
func TestStartRedriveBranches(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	refused := serviceerror.NewWorkflowExecutionAlreadyStarted("already started", "", "run-1")
	run := func(started time.Time, status enumspb.WorkflowExecutionStatus) *workflowpb.WorkflowExecutionInfo {
		return &workflowpb.WorkflowExecutionInfo{StartTime: timestamppb.New(started), Status: status}
	}
	for name, c := range map[string]struct {
		temporal redriveTemporal
		wantErr  string
	}{
		"started":                     {},
		"start failed":                {temporal: redriveTemporal{startErr: errors.New("frontend down")}, wantErr: "frontend down"},
		"started by an earlier try":   {temporal: redriveTemporal{startErr: refused, current: run(at.Add(time.Second), enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING)}},
		"delivery already completed":  {temporal: redriveTemporal{startErr: refused, current: run(at.Add(-time.Hour), enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED)}},
		"previous run still closing":  {temporal: redriveTemporal{startErr: refused, current: run(at.Add(-time.Hour), enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING)}, wantErr: "still closing"},
		"current run cannot be found": {temporal: redriveTemporal{startErr: refused, descErr: errors.New("describe down")}, wantErr: "describe down"},
	} {
		t.Run(name, func(t *testing.T) {
			tc := c.temporal
			a := newTestActivities(newFakeEndpoints(t), &tc, nil)
			req := request("ep_1", 2)
			req.Redrive = &delivery.Redrive{By: "op", Reason: "fixed", At: at}
			_, err := activityEnv(a).ExecuteActivity(delivery.ActivityRedrive, req)
			if c.wantErr == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, c.wantErr)
			}
			require.Len(t, tc.starts, 1)
			assert.Equal(t, req.DeliveryID, tc.starts[0].ID)
			assert.Equal(t, enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY, tc.starts[0].WorkflowIDReusePolicy)
		})
	}
}
