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
	"google.golang.org/protobuf/types/known/timestamppb"

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
// none after them, records the recover updates sent (the deliveries take
// them) and the wake-ups started.
type wakeTemporal struct {
	client.Client
	mu      sync.Mutex
	queries []string
	lists   [][]*workflowpb.WorkflowExecutionInfo
	signals []string
	wakes   []string
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

// SignalWithStartWorkflow records the wake-up started (or joined).
func (f *wakeTemporal) SignalWithStartWorkflow(_ context.Context, id, signal string, arg any, opts client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	req := args[0].(delivery.WakeRequest)
	sig := arg.(delivery.RecoverSignal)
	f.wakes = append(f.wakes, fmt.Sprintf("%s %s %s %s %s %s immediate=%d", id, opts.ID, signal, wf, sig.By, sig.Reason, req.Immediate))
	return nil, nil
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

// The probe that closes the circuit starts the endpoint's wake-up
// workflow (or joins it) before it returns, with who and why, always
// paced: the wake-up outlives the process.
func TestCircuitClosingStartsTheWakeUp(t *testing.T) {
	rc := newScripted(t, 200)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	eps.setBreaker("ep_1", circuit.Breaker{State: circuit.Open, Failures: 5, OpenUntil: now, Cooldown: time.Minute})
	tc := &wakeTemporal{}
	a := newTestActivities(eps, tc, func() time.Time { return now })

	at := firstAttempt(t, a, request("ep_1", 3))
	require.Equal(t, delivery.OutcomeSuccess, at.Outcome, "the probe")
	assert.Equal(t, []string{"wake_ep_1 wake_ep_1 wake Wake hookd circuit closed immediate=0"}, tc.wakes)
	queries, signals := tc.seen()
	assert.Empty(t, queries, "the workflow lists, not the attempt")
	assert.Empty(t, signals)
}

// A page of the wake-up wakes the waiting deliveries with recover
// updates; retried after a worker died, it resumes after the cursor its
// heartbeat carried.
func TestWakePageResumesAfterItsHeartbeat(t *testing.T) {
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", Enabled: true})
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	listed := executions("dlv_a", "dlv_b", "dlv_c")
	for i, ex := range listed {
		ex.StartTime = timestamppb.New(t0.Add(time.Duration(i) * time.Second))
	}
	tc := &wakeTemporal{lists: [][]*workflowpb.WorkflowExecutionInfo{listed, listed}}
	a := newTestActivities(eps, tc, nil)
	in := delivery.WakePageInput{EndpointID: "ep_1", Signal: delivery.RecoverSignal{By: "hookd", Reason: "circuit closed"}, Max: 10}

	env := activityEnv(a)
	v, err := env.ExecuteActivity(delivery.ActivityWakePage, in)
	require.NoError(t, err)
	var res delivery.WakePageResult
	require.NoError(t, v.Get(&res))
	assert.Equal(t, 3, res.Woken)
	assert.False(t, res.More)

	env = activityEnv(a)
	env.SetHeartbeatDetails(delivery.WakeCursor{Started: t0.Add(time.Second), WorkflowID: "dlv_b"})
	v, err = env.ExecuteActivity(delivery.ActivityWakePage, in)
	require.NoError(t, err)
	require.NoError(t, v.Get(&res))
	assert.Equal(t, 1, res.Woken, "only what came after the heartbeat's cursor")
	queries, signals := tc.seen()
	assert.Contains(t, queries[1], "StartTime >= '2026-01-02T03:04:06Z'")
	assert.Equal(t, "dlv_c recover hookd circuit closed", signals[len(signals)-1])
	assert.Len(t, signals, 4)
}

// The second look's question: an endpoint takes attempts when it is
// enabled with its circuit closed; not when disabled, open, or deleted.
func TestTakesAttempts(t *testing.T) {
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_on", Enabled: true}, store.Endpoint{ID: "ep_off"}, store.Endpoint{ID: "ep_open", Enabled: true})
	eps.setBreaker("ep_open", circuit.Breaker{State: circuit.Open, Failures: 5, OpenUntil: time.Now().Add(time.Minute)})
	a := newTestActivities(eps, nil, nil)
	for id, want := range map[string]bool{"ep_on": true, "ep_off": false, "ep_open": false, "ep_gone": false} {
		v, err := activityEnv(a).ExecuteActivity(delivery.ActivityTakesAttempts, id)
		require.NoError(t, err, id)
		var got bool
		require.NoError(t, v.Get(&got))
		assert.Equal(t, want, got, id)
	}
}
