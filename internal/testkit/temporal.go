package testkit

import (
	"context"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// DownTemporal is a Temporal client that cannot reach its server: the
// calls hookd's API, portal and activities make of a running system
// (list, count, describe, query, signal-with-start) fail as
// unavailable, for code under test that must cope with Temporal being
// down or is not meant to reach it. Any other call panics.
type DownTemporal struct{ client.Client }

// ErrTemporalDown is what DownTemporal's calls fail with.
var ErrTemporalDown = serviceerror.NewUnavailable("connection refused")

func (DownTemporal) ListWorkflow(context.Context, *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	return nil, ErrTemporalDown
}

func (DownTemporal) CountWorkflow(context.Context, *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error) {
	return nil, ErrTemporalDown
}

func (DownTemporal) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	return nil, ErrTemporalDown
}

func (DownTemporal) QueryWorkflow(context.Context, string, string, string, ...any) (converter.EncodedValue, error) {
	return nil, ErrTemporalDown
}

func (DownTemporal) SignalWithStartWorkflow(context.Context, string, string, any, client.StartWorkflowOptions, any, ...any) (client.WorkflowRun, error) {
	return nil, ErrTemporalDown
}
