package wake

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/visibility"
)

// Starter is what a Waker uses of Temporal (client.Client).
type Starter interface {
	CountWorkflow(ctx context.Context, req *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error)
	SignalWithStartWorkflow(ctx context.Context, workflowID, signalName string, signalArg any, options client.StartWorkflowOptions, workflow any, workflowArgs ...any) (client.WorkflowRun, error)
}

// Waker starts the wake-ups of endpoints' waiting deliveries: the one way
// the API (a recover, an enable) and the activities (a circuit that
// closed) wake them. Each wake-up is a workflow of its own, its ID
// derived from the endpoint's (delivery.WakeID), so it survives the
// process that asked for it, and a wake-up asked for while one runs
// joins it (the signal of a signal-with-start) instead of starting
// another beside it.
type Waker struct {
	c         Starter
	immediate int
	settle    time.Duration
}

// NewWaker returns a Waker whose wake-ups signal a backlog of up to
// immediate at once (zero: always recover updates, at the drain's pace)
// and take their second look settle after their first list (zero:
// Settle).
func NewWaker(c Starter, immediate int, settle time.Duration) *Waker {
	return &Waker{c: c, immediate: immediate, settle: settle}
}

// Immediate is the largest backlog the Waker's wake-ups signal at once.
func (w *Waker) Immediate() int { return w.immediate }

// Count returns how many of endpointID's deliveries wait.
func (w *Waker) Count(ctx context.Context, endpointID string) (int, error) {
	resp, err := w.c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: visibility.Waiting(endpointID).String()})
	if err != nil {
		return 0, fmt.Errorf("count waiting deliveries: %w", err)
	}
	return int(resp.GetCount()), nil
}

// Wake starts endpointID's wake-up with sig (who, why, and in NotBefore
// when), or joins the one running. It returns once Temporal holds the
// request: from then on the wake-up survives any process.
func (w *Waker) Wake(ctx context.Context, endpointID string, sig delivery.RecoverSignal) error {
	id := delivery.WakeID(endpointID)
	req := delivery.WakeRequest{EndpointID: endpointID, Signal: sig, Immediate: w.immediate, Settle: w.settle}
	_, err := w.c.SignalWithStartWorkflow(ctx, id, delivery.SignalWake, sig, client.StartWorkflowOptions{
		ID:                    id,
		TaskQueue:             delivery.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:         "wake the deliveries waiting on " + endpointID,
	}, delivery.WorkflowWake, req)
	if err != nil {
		return fmt.Errorf("start wake-up of %s: %w", endpointID, err)
	}
	return nil
}
