package wake

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/hookd/hookd/internal/delivery"
)

// fakeUpdater lists n waiting deliveries (dlv_0 oldest) and answers each
// recover update as answer says, recording how many were outstanding.
type fakeUpdater struct {
	n      int
	answer func(id string) (client.WorkflowUpdateHandle, error)

	mu               sync.Mutex
	updated, signals []string
	outstanding, max int
}

func (f *fakeUpdater) ListWorkflow(context.Context, *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var out []*workflowpb.WorkflowExecutionInfo
	for i := f.n - 1; i >= 0; i-- { // newest first, as visibility lists them
		out = append(out, &workflowpb.WorkflowExecutionInfo{
			Execution: &commonpb.WorkflowExecution{WorkflowId: fmt.Sprintf("dlv_%d", i), RunId: "run"},
			StartTime: timestamppb.New(t0.Add(time.Duration(i) * time.Second)),
		})
	}
	return &workflowservice.ListWorkflowExecutionsResponse{Executions: out}, nil
}

func (f *fakeUpdater) SignalWorkflow(_ context.Context, id, _, name string, _ any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.signals = append(f.signals, id+" "+name)
	return nil
}

func (f *fakeUpdater) UpdateWorkflow(_ context.Context, opts client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	f.mu.Lock()
	f.updated = append(f.updated, opts.WorkflowID)
	f.outstanding++
	f.max = max(f.max, f.outstanding)
	f.mu.Unlock()
	time.Sleep(time.Millisecond) // the woken delivery's attempt
	f.mu.Lock()
	f.outstanding--
	f.mu.Unlock()
	return f.answer(opts.WorkflowID)
}

// handle is an update's outcome.
type handle struct {
	client.WorkflowUpdateHandle
	err error
}

func (h handle) Get(context.Context, any) error { return h.err }

func done(string) (client.WorkflowUpdateHandle, error) { return handle{}, nil }

// Every waiting delivery gets the update, the oldest first, and never
// more than InFlight are outstanding.
func TestPacedWakesEveryOneInFlightAtATime(t *testing.T) {
	f := &fakeUpdater{n: 200, answer: done}
	n, err := Paced(context.Background(), f, "ep_1", delivery.RecoverSignal{By: "hookd"})
	require.NoError(t, err)
	assert.Equal(t, 200, n)
	assert.Len(t, f.updated, 200)
	assert.LessOrEqual(t, f.max, InFlight)
	assert.Greater(t, f.max, 1, "updates overlap")
	assert.Less(t, slices.Index(f.updated, "dlv_0"), 2*InFlight, "the oldest among the first sent")
	assert.Greater(t, slices.Index(f.updated, "dlv_199"), 200-2*InFlight, "the newest among the last sent")
}

// A delivery that ended (NotFound) or declined (not waiting) is skipped
// and not counted; the others are woken.
func TestPacedSkipsEndedAndDeclined(t *testing.T) {
	f := &fakeUpdater{n: 3, answer: func(id string) (client.WorkflowUpdateHandle, error) {
		switch id {
		case "dlv_0":
			return nil, serviceerror.NewNotFound("workflow execution already completed")
		case "dlv_1":
			return handle{err: temporal.NewApplicationError("the delivery is not waiting", delivery.ErrTypeNotWaiting)}, nil
		}
		return handle{}, nil
	}}
	n, err := Paced(context.Background(), f, "ep_1", delivery.RecoverSignal{})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

// A server that refuses updates gets the recover signal instead.
func TestPacedSignalsWhereUpdatesAreRefused(t *testing.T) {
	f := &fakeUpdater{n: 3, answer: func(string) (client.WorkflowUpdateHandle, error) {
		return nil, serviceerror.NewPermissionDenied("UpdateWorkflowExecution operation is disabled on this namespace.", "")
	}}
	n, err := Paced(context.Background(), f, "ep_1", delivery.RecoverSignal{})
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	assert.ElementsMatch(t, []string{"dlv_0 recover", "dlv_1 recover", "dlv_2 recover"}, f.signals)
}

// Any other failure stops the wake-up with the error.
func TestPacedStopsOnFailure(t *testing.T) {
	boom := serviceerror.NewUnavailable("history down")
	f := &fakeUpdater{n: 100, answer: func(string) (client.WorkflowUpdateHandle, error) { return nil, boom }}
	n, err := Paced(context.Background(), f, "ep_1", delivery.RecoverSignal{})
	require.Error(t, err)
	assert.True(t, errors.Is(err, boom) || errors.As(err, new(*serviceerror.Unavailable)))
	assert.Zero(t, n)
	assert.Less(t, len(f.updated), 100, "stopped before the end")
}

// A page wakes at most Max deliveries after its cursor, oldest first,
// and reports its progress; the next page goes on after it, until the
// backlog is done.
func TestPageGoesOnAfterItsCursor(t *testing.T) {
	f := &fakeUpdater{n: 25, answer: done}
	in := delivery.WakePageInput{EndpointID: "ep_1", Signal: delivery.RecoverSignal{By: "hookd", NotBefore: time.Now()}, Max: 10, Immediate: 5}
	var woken []int
	var last delivery.WakeCursor
	for range 5 {
		res, err := Page(context.Background(), f, in, func(c delivery.WakeCursor) { last = c })
		require.NoError(t, err)
		woken = append(woken, res.Woken)
		require.NotNil(t, res.Cursor)
		assert.Equal(t, *res.Cursor, last, "progress reached the page's end")
		if !res.More {
			break
		}
		in.Cursor = res.Cursor
	}
	assert.Equal(t, []int{10, 10, 5}, woken)
	assert.Len(t, f.updated, 25, "each once")
	assert.Empty(t, f.signals, "a backlog over Max is never signalled")
	assert.Equal(t, "dlv_24", last.WorkflowID)
}

// A first page that finds the whole backlog within Immediate signals it,
// each at its slot after the wake-up's time.
func TestPageSignalsASmallBacklog(t *testing.T) {
	f := &fakeUpdater{n: 3, answer: done}
	res, err := Page(context.Background(), f, delivery.WakePageInput{EndpointID: "ep_1", Immediate: 3, Max: 10}, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, res.Woken)
	assert.False(t, res.More)
	assert.Len(t, f.signals, 3)
	assert.Empty(t, f.updated)
}
