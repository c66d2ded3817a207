package workflows_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
)

// wakeRequest is a recover's wake-up of ep_1.
func wakeRequest() delivery.WakeRequest {
	return delivery.WakeRequest{EndpointID: "ep_1", Signal: delivery.RecoverSignal{By: "api-key:1234", Reason: "fixed", NotBefore: t0}, Immediate: 500}
}

// backlog scripts WakePage over a backlog of n, per pages of max: each
// page after its cursor (a cursor's workflow ID is the index it got to).
func backlog(n int) func(delivery.WakePageInput) (delivery.WakePageResult, error) {
	return func(in delivery.WakePageInput) (delivery.WakePageResult, error) {
		from := 0
		if in.Cursor != nil {
			_, _ = fmt.Sscanf(in.Cursor.WorkflowID, "dlv_%d", &from)
		}
		if in.Cursor == nil && n <= in.Immediate {
			return delivery.WakePageResult{Woken: n}, nil
		}
		to := min(n, from+in.Max)
		return delivery.WakePageResult{Woken: to - from, Cursor: &delivery.WakeCursor{WorkflowID: fmt.Sprintf("dlv_%d", to)}, More: to < n}, nil
	}
}

// A wake-up wakes the backlog a bounded page at a time, each page after
// the last one's cursor; then, delivery.WakeSettle after its first list,
// the second look wakes what a new list finds, paced (no Immediate), and
// the wake-up ends.
func TestWakePagesThenLooksAgain(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.wakePage = backlog(2500)
	env.signalAt(0, delivery.SignalWake, wakeRequest().Signal) // the signal of the signal-with-start
	env.ExecuteWorkflow(delivery.WorkflowWake, wakeRequest())
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res delivery.WakeResult
	require.NoError(t, env.GetWorkflowResult(&res))

	pages := env.fakes.pages
	require.Len(t, pages, 6, "three pages of the first pass, three of the second look (the script finds them all again)")
	for i, p := range pages[:3] {
		assert.Equal(t, 1000, p.in.Max)
		assert.Equal(t, 500, p.in.Immediate)
		assert.Equal(t, t0, p.at, "page %d: the first pass at once", i)
		assert.Equal(t, wakeRequest().Signal, p.in.Signal)
	}
	assert.Nil(t, pages[0].in.Cursor)
	assert.Equal(t, "dlv_1000", pages[1].in.Cursor.WorkflowID)
	assert.Equal(t, "dlv_2000", pages[2].in.Cursor.WorkflowID)
	assert.Nil(t, pages[3].in.Cursor, "the second look lists all again")
	assert.Zero(t, pages[3].in.Immediate, "the second look is paced")
	assert.Equal(t, t0.Add(delivery.WakeSettle), pages[3].at)
	assert.Equal(t, []time.Time{t0.Add(delivery.WakeSettle)}, env.fakes.looks, "asked whether the endpoint takes attempts before the look")
	assert.Equal(t, delivery.WakeResult{Woken: 5000, Looks: 1}, res, "the script's second look found the backlog again")
}

// An endpoint that holds attempts back again (its circuit reopened, or it
// was switched off) by the second look gets none: its deliveries wait
// for its next change.
func TestWakeSkipsTheSecondLookWhenHeldBack(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.wakePage = backlog(3)
	env.fakes.takes = func() bool { return false }
	env.ExecuteWorkflow(delivery.WorkflowWake, wakeRequest())
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, env.fakes.pages, 1, "no second look")
	assert.Len(t, env.fakes.looks, 1)
}

// A request that joins while the second look's pass runs gets one more
// look; one that joins while the wake-up waits to look is covered by
// that look.
func TestWakeJoinedLooksOnceMore(t *testing.T) {
	env := newTestEnv(t)
	page := backlog(3)
	env.fakes.wakePage = func(in delivery.WakePageInput) (delivery.WakePageResult, error) {
		if len(env.fakes.pages) == 2 {
			env.SignalWorkflow(delivery.SignalWake, delivery.RecoverSignal{By: "second"})
		}
		return page(in)
	}
	env.signalAt(time.Second, delivery.SignalWake, delivery.RecoverSignal{By: "during the settle"})
	env.ExecuteWorkflow(delivery.WorkflowWake, wakeRequest())
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res delivery.WakeResult
	require.NoError(t, env.GetWorkflowResult(&res))
	assert.Len(t, env.fakes.pages, 3, "the first pass, the second look, one more for the join")
	assert.Equal(t, 2, res.Looks)
}

// A long backlog continues as new after a bounded number of pages,
// carrying its cursor, the time of its first list and its count.
func TestWakeContinuesAsNewOnALongBacklog(t *testing.T) {
	env := newTestEnv(t)
	env.fakes.wakePage = backlog(1_000_000)
	env.ExecuteWorkflow(delivery.WorkflowWake, wakeRequest())
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "%v", env.GetWorkflowError())
	var next delivery.WakeRequest
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	assert.Len(t, env.fakes.pages, 100)
	assert.Equal(t, "dlv_100000", next.Cursor.WorkflowID)
	assert.Equal(t, 100_000, next.Woken)
	assert.Equal(t, t0, next.Listed)
	assert.Equal(t, "ep_1", next.EndpointID)
	assert.Equal(t, wakeRequest().Signal, next.Signal)
}
