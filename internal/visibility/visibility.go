// Package visibility answers questions about hookd's running workflows
// from Temporal's visibility store: the pending deliveries and waiting dead
// letters, of one endpoint or all, how many, and when the oldest started.
// The API's endpoint health and the metrics gauges ask the same questions
// the same way through it.
package visibility

import (
	"context"
	"fmt"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/internal/delivery"
)

// Reader is what this package reads of Temporal (client.Client).
type Reader interface {
	CountWorkflow(ctx context.Context, req *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error)
	ListWorkflow(ctx context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error)
}

// Pending is the query of the deliveries still running (pending, retrying
// or waiting) to endpointID, or to every endpoint if it is empty.
func Pending(endpointID string) string { return running(delivery.WorkflowDelivery, endpointID) }

// DeadLetters is the query of the dead letters waiting for a redrive, of
// endpointID or of every endpoint if it is empty.
func DeadLetters(endpointID string) string { return running(delivery.WorkflowDeadLetter, endpointID) }

func running(workflowType, endpointID string) string {
	q := fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", workflowType)
	if endpointID != "" {
		q += fmt.Sprintf(" AND %s = '%s'", delivery.AttrEndpointID.GetName(), endpointID)
	}
	return q
}
