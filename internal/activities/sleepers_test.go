package activities

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// While the circuit is open, the first ProbersPerCooldown deferrals of a
// round wait for the cooldown's end (one of them takes the probe); the
// rest sleep about CircuitSleep, to be woken when the circuit closes. A
// new round (the probe failed, the cooldown doubled) has probers again.
func TestOpenCircuitWakesOnlyTheRoundsProbers(t *testing.T) {
	rc := newScripted(t, 200)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	until := now.Add(time.Minute)
	eps.setBreaker("ep_1", circuit.Breaker{State: circuit.Open, Failures: 5, OpenUntil: until, Cooldown: time.Minute})
	a := newTestActivities(eps, nil, func() time.Time { return now })

	var probers, sleepers int
	for range ProbersPerCooldown + 5 {
		at := firstAttempt(t, a, request("ep_1", 3))
		require.Equal(t, delivery.OutcomeDeferred, at.Outcome)
		assert.Equal(t, delivery.WaitCircuitOpen, at.DelayReason)
		switch wait := at.NextAttempt.Sub(now); {
		case wait >= time.Minute && wait <= time.Minute+time.Minute/5:
			probers++
		case wait >= DefaultCircuitSleep*9/10 && wait <= DefaultCircuitSleep*11/10:
			sleepers++
		default:
			t.Fatalf("deferred by %s", wait)
		}
	}
	assert.Equal(t, ProbersPerCooldown, probers)
	assert.Equal(t, 5, sleepers)
	assert.Empty(t, rc.seen(), "nothing sent")

	// The old-version wake-up (Admit) thins the same round.
	adm, err := a.Admit(context.Background(), delivery.AdmitInput{DeliveryID: "dlv_x", EndpointID: "ep_1"})
	require.NoError(t, err)
	assert.Greater(t, adm.WaitUntil.Sub(now), 50*time.Minute)

	eps.setBreaker("ep_1", circuit.Breaker{State: circuit.Open, Failures: 6, OpenUntil: now.Add(2 * time.Minute), Cooldown: 2 * time.Minute})
	at := firstAttempt(t, a, request("ep_1", 3))
	assert.Less(t, at.NextAttempt.Sub(now), 3*time.Minute, "a new round's first deferral is a prober")
}

// wakeTemporal lists waiting deliveries, lists[i] at the i-th list and
// none after them, and records the recover updates sent; the deliveries
// take them.
type wakeTemporal struct {
	client.Client
	mu      sync.Mutex
	queries []string
	lists   [][]*workflowpb.WorkflowExecutionInfo
	signals []string
}

func (f *wakeTemporal) ListWorkflow(_ context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, req.GetQuery())
	var listed []*workflowpb.WorkflowExecutionInfo
	if n := len(f.queries); n <= len(f.lists) {
		listed = f.lists[n-1]
	}
	return &workflowservice.ListWorkflowExecutionsResponse{Executions: listed}, nil
}

// UpdateWorkflow records the recover update; the delivery takes it.
func (f *wakeTemporal) UpdateWorkflow(_ context.Context, opts client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sig := opts.Args[0].(delivery.RecoverSignal)
	f.signals = append(f.signals, fmt.Sprintf("%s %s %s %s", opts.WorkflowID, opts.UpdateName, sig.By, sig.Reason))
	return acceptedUpdate{}, nil
}

// seen returns the lists' queries and the updates sent so far.
func (f *wakeTemporal) seen() (queries, signals []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.queries), slices.Clone(f.signals)
}

// acceptedUpdate is an update the workflow accepted and completed.
type acceptedUpdate struct{ client.WorkflowUpdateHandle }

func (acceptedUpdate) Get(context.Context, any) error { return nil }

// executions are running deliveries with these IDs.
func executions(ids ...string) []*workflowpb.WorkflowExecutionInfo {
	var out []*workflowpb.WorkflowExecutionInfo
	for _, id := range ids {
		out = append(out, &workflowpb.WorkflowExecutionInfo{Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: "run"}})
	}
	return out
}

// The probe that closes the circuit wakes every delivery waiting on the
// endpoint with a recover update, the sleepers among them; a second look,
// wake.Settle after the first, wakes one that visibility showed waiting
// only after the first list (deferred an instant before the close).
func TestCircuitClosingWakesTheWaiting(t *testing.T) {
	rc := newScripted(t, 200)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	eps.setBreaker("ep_1", circuit.Breaker{State: circuit.Open, Failures: 5, OpenUntil: now, Cooldown: time.Minute})
	tc := &wakeTemporal{lists: [][]*workflowpb.WorkflowExecutionInfo{executions("dlv_a", "dlv_b", "dlv_c"), executions("dlv_late")}}
	a := newTestActivities(eps, tc, func() time.Time { return now })
	a.wakeSettle = 50 * time.Millisecond

	at := firstAttempt(t, a, request("ep_1", 3))
	require.Equal(t, delivery.OutcomeSuccess, at.Outcome, "the probe")
	var queries, signals []string
	require.Eventually(t, func() bool {
		queries, signals = tc.seen()
		return len(signals) == 4
	}, 10*time.Second, 5*time.Millisecond, "the waiting deliveries were not woken")
	slices.Sort(signals[:3]) // the order is the wake-up's, by age; compared here as a set
	assert.Equal(t, []string{
		"dlv_a recover hookd circuit closed", "dlv_b recover hookd circuit closed", "dlv_c recover hookd circuit closed",
		"dlv_late recover hookd circuit closed",
	}, signals)
	require.Len(t, queries, 2, "a second look, and no more")
	assert.Contains(t, queries[0], "HookdEndpointId = 'ep_1'")
	assert.Contains(t, queries[0], "HookdStatus = 'waiting'")
	assert.Equal(t, queries[0], queries[1])
}

// If the circuit opened again before the second look, the closing wake-up
// does not take it: the deliveries still waiting wait for the next close.
func TestCircuitReopenedSkipsTheSecondLook(t *testing.T) {
	rc := newScripted(t, 200)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	eps.setBreaker("ep_1", circuit.Breaker{State: circuit.Open, Failures: 5, OpenUntil: now, Cooldown: time.Minute})
	tc := &wakeTemporal{lists: [][]*workflowpb.WorkflowExecutionInfo{executions("dlv_a"), executions("dlv_late")}}
	a := newTestActivities(eps, tc, func() time.Time { return now })
	a.wakeSettle = 200 * time.Millisecond

	require.Equal(t, delivery.OutcomeSuccess, firstAttempt(t, a, request("ep_1", 3)).Outcome, "the probe")
	require.Eventually(t, func() bool { _, signals := tc.seen(); return len(signals) == 1 }, 10*time.Second, 5*time.Millisecond)
	eps.setBreaker("ep_1", circuit.Breaker{State: circuit.Open, Failures: 5, OpenUntil: now.Add(time.Minute), Cooldown: time.Minute})
	require.Eventually(t, func() bool {
		a.sleepers.mu.Lock()
		defer a.sleepers.mu.Unlock()
		return !a.sleepers.waking["ep_1"]
	}, 10*time.Second, 5*time.Millisecond, "the wake-up ends")
	queries, signals := tc.seen()
	assert.Len(t, queries, 1)
	assert.Equal(t, []string{"dlv_a recover hookd circuit closed"}, signals)
}
