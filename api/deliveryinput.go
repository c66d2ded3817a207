package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/delivery"
)

// withInput adds what a delivery run was started with to out: the event's
// payload and, for a redriven run, who redrove it. It reads the run's
// first history event and decodes it through the client's data converter,
// so it works whether the payload is stored encrypted or not.
func (s *Server) withInput(ctx context.Context, out *deliveryOut, runID string) error {
	resp, err := s.temporal.WorkflowService().GetWorkflowExecutionHistory(ctx, &workflowservice.GetWorkflowExecutionHistoryRequest{
		Namespace:       s.namespace,
		Execution:       &commonpb.WorkflowExecution{WorkflowId: out.ID, RunId: runID},
		MaximumPageSize: 1,
	})
	if err != nil {
		return fmt.Errorf("%w: read delivery input: %w", errUnavailable, err)
	}
	events := resp.GetHistory().GetEvents()
	if len(events) == 0 || events[0].GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED {
		return errors.New("read delivery input: history does not start with the workflow's start")
	}
	var req delivery.Request
	if err := s.dc.FromPayloads(events[0].GetWorkflowExecutionStartedEventAttributes().GetInput(), &req); err != nil {
		return fmt.Errorf("decode input of delivery %s: %w", out.ID, err)
	}
	if json.Valid([]byte(req.Body)) {
		out.Payload = json.RawMessage(req.Body)
	}
	out.Redrive = req.Redrive
	return nil
}
