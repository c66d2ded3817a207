package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/wake"
)

// postRecover calls the recover route and decodes the answer.
func postRecover(t *testing.T, s *Server, id, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/v1/endpoints/"+id+"/recover", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer k")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	var out map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
	return rec.Code, out
}

// wakingTemporal is Temporal as the wake-up sees it: CountWorkflow says
// how many deliveries wait, SignalWithStartWorkflow records each wake-up
// started or joined (wakeErr fails them).
type wakingTemporal struct {
	*fakeTemporal
	waiting int
	wakeErr error

	mu    sync.Mutex
	wakes []wakeStart
}

// wakeStart is one SignalWithStartWorkflow call.
type wakeStart struct {
	id, signal string
	sig        delivery.RecoverSignal
	opts       client.StartWorkflowOptions
	workflow   any
	req        delivery.WakeRequest
}

func (f *wakingTemporal) CountWorkflow(context.Context, *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error) {
	return &workflowservice.CountWorkflowExecutionsResponse{Count: int64(f.waiting)}, nil
}

func (f *wakingTemporal) SignalWithStartWorkflow(_ context.Context, id, signal string, arg any, opts client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.wakeErr != nil {
		return nil, f.wakeErr
	}
	f.wakes = append(f.wakes, wakeStart{id: id, signal: signal, sig: arg.(delivery.RecoverSignal), opts: opts, workflow: wf, req: args[0].(delivery.WakeRequest)})
	return nil, nil
}

// newWakingServer is a test server whose endpoints have waiting
// deliveries waiting.
func newWakingServer(t *testing.T, waiting int) (*Server, *wakingTemporal) {
	t.Helper()
	wt := &wakingTemporal{fakeTemporal: &fakeTemporal{}, waiting: waiting}
	s := newTestServer(t, wt.fakeTemporal)
	s.temporal = wt
	return s, wt
}

// Recover enables a disabled endpoint, closes its circuit with no failures
// counted, and starts the endpoint's wake-up workflow with who, why and
// when, before it answers: the wake-up survives the process.
func TestRecoverClosesTheCircuitAndWakesTheWaiting(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	s, wt := newWakingServer(t, 3)
	s.now = func() time.Time { return now }
	st := s.store.(*fakeStore)
	st.circuits = map[string]circuit.Breaker{"ep_off": {State: circuit.Open, Failures: 7, OpenUntil: now.Add(5 * time.Minute), Cooldown: 4 * time.Minute}}

	code, out := postRecover(t, s, "ep_off", `{"reason": "receiver fixed"}`)
	require.Equal(t, http.StatusOK, code, out)

	by := "api-key:" + authz.HashToken("k")[:8]
	assert.Equal(t, map[string]any{
		"endpoint_id": "ep_off", "by": by, "reason": "receiver fixed", "at": now.Format(time.RFC3339Nano),
		"previous_circuit": "open", "previous_consecutive_failures": 7.0, "reenabled": true,
		"woken": 3.0, "spread": "0s", "paced": false,
	}, out)
	assert.True(t, st.endpoints["ep_off"].Enabled, "enabled again")
	assert.Equal(t, circuit.Breaker{State: circuit.Closed}, st.circuits["ep_off"], "closed, failures and cooldown reset")
	require.Len(t, wt.wakes, 1)
	w := wt.wakes[0]
	sig := delivery.RecoverSignal{By: by, Reason: "receiver fixed", NotBefore: now}
	assert.Equal(t, "wake_ep_off", w.id)
	assert.Equal(t, "wake_ep_off", w.opts.ID)
	assert.Equal(t, delivery.SignalWake, w.signal)
	assert.Equal(t, delivery.WorkflowWake, w.workflow)
	assert.Equal(t, sig, w.sig)
	assert.Equal(t, delivery.WakeRequest{EndpointID: "ep_off", Signal: sig, Immediate: wake.Immediate, Settle: s.wakeSettle}, w.req)
	assert.Empty(t, wt.signals, "the wake-up signals, not the request")
}

// A backlog within the immediate bound is signalled by the wake-up over
// the recover window: the answer says the spread; a larger one is paced,
// and says so, with no fixed spread.
func TestRecoverSaysHowTheBacklogIsWoken(t *testing.T) {
	s, wt := newWakingServer(t, 95)
	code, out := postRecover(t, s, "ep_on", "")
	require.Equal(t, http.StatusOK, code, out)
	assert.Equal(t, 95.0, out["woken"])
	assert.Equal(t, false, out["reenabled"])
	assert.Equal(t, "closed", out["previous_circuit"], "a breaker never written is closed")
	assert.Equal(t, wake.Spread(95).String(), out["spread"])
	assert.Equal(t, false, out["paced"])

	s.recoverImmediate, wt.waiting = 5, 8
	code, out = postRecover(t, s, "ep_on", `{"reason": "backlog"}`)
	require.Equal(t, http.StatusOK, code, out)
	assert.Equal(t, 8.0, out["woken"])
	assert.Equal(t, true, out["paced"])
	assert.NotContains(t, out, "spread", "no fixed spread: as fast as they drain")
	require.Len(t, wt.wakes, 2)
	assert.Equal(t, 5, wt.wakes[1].req.Immediate)
}

// A second recover while the first's wake-up runs asks for the same
// workflow ID: Temporal joins it to the running wake-up (its signal)
// instead of starting another beside it.
func TestConcurrentRecoversJoinOneWakeUp(t *testing.T) {
	s, wt := newWakingServer(t, 3000)
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			code, out := postRecover(t, s, "ep_on", `{"reason": "storm"}`)
			assert.Equal(t, http.StatusOK, code, out)
		})
	}
	wg.Wait()
	require.Len(t, wt.wakes, 40)
	for _, w := range wt.wakes {
		assert.Equal(t, "wake_ep_on", w.opts.ID, "one wake-up per endpoint")
		assert.Equal(t, delivery.SignalWake, w.signal)
	}
}

// A Temporal that cannot take the wake-up is a 503 (recover again to
// finish) that does not say what failed.
func TestRecoverWakeFailure(t *testing.T) {
	s, wt := newWakingServer(t, 3)
	wt.wakeErr = errors.New("frontend unavailable")
	code, out := postRecover(t, s, "ep_on", "")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.NotContains(t, out["error"].(map[string]any)["message"], "frontend")
}

func TestRecoverRefusals(t *testing.T) {
	tc := &fakeTemporal{}
	s := newTestServer(t, tc)
	assertRefusals(t, func(id, body string) (int, map[string]any) { return postRecover(t, s, id, body) }, []refusal{
		{"ep_missing", "", http.StatusNotFound, ""},
		{"ep_on", `{"reason": "` + strings.Repeat("x", 1025) + `"}`, http.StatusBadRequest, "reason"},
		{"ep_on", `{"why": "x"}`, http.StatusBadRequest, "why"},
		{"ep_on", `{"reason": 1}`, http.StatusBadRequest, "reason"},
	})
	assert.Empty(t, tc.signals)
	assert.Empty(t, s.store.(*fakeStore).circuits, "nothing changed")
}

// patchEndpoint calls PATCH on the endpoint and returns the status.
func patchEndpoint(t *testing.T, s *Server, id, body string) int {
	t.Helper()
	req := httptest.NewRequest(http.MethodPatch, "/v1/endpoints/"+id, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer k")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec.Code
}

// Enabling a disabled endpoint starts its wake-up, with who and
// "endpoint enabled"; a patch that leaves the switch as it was wakes
// nothing, and a wake-up that fails leaves the change stored.
func TestEnablingWakesTheHeld(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	s, wt := newWakingServer(t, 2)
	s.now = func() time.Time { return now }
	st := s.store.(*fakeStore)

	require.Equal(t, http.StatusOK, patchEndpoint(t, s, "ep_on", `{"description": "still on"}`))
	require.Equal(t, http.StatusOK, patchEndpoint(t, s, "ep_on", `{"enabled": true}`))
	assert.Empty(t, wt.wakes, "already enabled: nothing held")

	require.Equal(t, http.StatusOK, patchEndpoint(t, s, "ep_off", `{"enabled": true}`))
	assert.True(t, st.endpoints["ep_off"].Enabled)
	require.Len(t, wt.wakes, 1)
	by := "api-key:" + authz.HashToken("k")[:8]
	assert.Equal(t, "wake_ep_off", wt.wakes[0].id)
	assert.Equal(t, delivery.RecoverSignal{By: by, Reason: "endpoint enabled", NotBefore: now}, wt.wakes[0].sig)

	require.Equal(t, http.StatusOK, patchEndpoint(t, s, "ep_off", `{"enabled": false}`))
	assert.Len(t, wt.wakes, 1, "disabling wakes nothing")
	wt.wakeErr = errors.New("frontend unavailable")
	require.Equal(t, http.StatusOK, patchEndpoint(t, s, "ep_off", `{"enabled": true}`), "the switch is stored; the held check it within the hour")
	assert.True(t, st.endpoints["ep_off"].Enabled)
}
