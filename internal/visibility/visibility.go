// Package visibility builds and asks hookd's queries of Temporal's
// visibility store. Query is the one builder of query strings (workflow
// type, execution status, start time and hookd's search attributes of
// internal/delivery, joined with AND and OR, every value quoted in one
// place); Pending, DeadLetters and Waiting are the queries several
// packages share. Count and Oldest answer how many executions a query
// matches and when the oldest started, for the API's endpoint health and
// dead-letter summary and the metrics gauges.
package visibility

import (
	"context"
	"time"

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
func Pending(endpointID string) Query { return running(delivery.WorkflowDelivery, endpointID) }

// DeadLetters is the query of the dead letters waiting for a redrive, of
// endpointID or of every endpoint if it is empty.
func DeadLetters(endpointID string) Query { return running(delivery.WorkflowDeadLetter, endpointID) }

// Waiting is the query of endpointID's deliveries that wait on its circuit
// or its switch.
func Waiting(endpointID string) Query {
	return And(Pending(endpointID), Is(delivery.AttrStatus, delivery.SearchStatusWaiting))
}

// WaitingOrDelayed is Waiting's deliveries and those whose start is still
// delayed at now to the rate limit's slot ingest reserved (their
// execution time is ahead; they carry no status yet).
func WaitingOrDelayed(endpointID string, now time.Time) Query {
	return And(Pending(endpointID), Or(Is(delivery.AttrStatus, delivery.SearchStatusWaiting), Executes(After, now)))
}

func running(workflowType, endpointID string) Query {
	q := And(WorkflowType(workflowType), Status(Running))
	if endpointID != "" {
		q = And(q, Is(delivery.AttrEndpointID, endpointID))
	}
	return q
}
