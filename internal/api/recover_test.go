package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"google.golang.org/protobuf/types/known/timestamppb"

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

// waitingExecutions are n running deliveries, started a minute apart with
// the newest first (as visibility lists them).
func waitingExecutions(n int, at time.Time) []*workflowpb.WorkflowExecutionInfo {
	var out []*workflowpb.WorkflowExecutionInfo
	for i := n - 1; i >= 0; i-- {
		out = append(out, &workflowpb.WorkflowExecutionInfo{
			Execution: &commonpb.WorkflowExecution{WorkflowId: fmt.Sprintf("dlv_%02d", i), RunId: fmt.Sprintf("run_%02d", i)},
			StartTime: timestamppb.New(at.Add(time.Duration(i) * time.Minute)),
		})
	}
	return out
}

// Recover enables a disabled endpoint, closes its circuit with no failures
// counted, and signals every waiting delivery of the endpoint, oldest
// first, with who and why.
func TestRecoverClosesTheCircuitAndWakesTheWaiting(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tc := &fakeTemporal{executions: waitingExecutions(3, now.Add(-time.Hour))}
	s := newTestServer(t, tc)
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
	require.Len(t, tc.lists, 1)
	assert.Equal(t, "WorkflowType = 'Delivery' AND ExecutionStatus = 'Running' AND HookdEndpointId = 'ep_off' AND HookdStatus = 'waiting'", tc.lists[0])
	require.Len(t, tc.signals, 3)
	byAge(tc.signals) // they are sent a few at a time
	for i, sig := range tc.signals {
		assert.Equal(t, fmt.Sprintf("dlv_%02d", i), sig.id)
		assert.Equal(t, fmt.Sprintf("run_%02d", i), sig.runID)
		assert.Equal(t, delivery.SignalRecover, sig.name)
		assert.Equal(t, delivery.RecoverSignal{By: by, Reason: "receiver fixed", NotBefore: now}, sig.arg)
	}
}

// Many waiting deliveries are woken at most wake.Burst at a time, every
// one within the recover window.
func TestRecoverSpreadsABacklog(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tc := &fakeTemporal{executions: waitingExecutions(95, now.Add(-24*time.Hour))}
	s := newTestServer(t, tc)
	s.now = func() time.Time { return now }

	code, out := postRecover(t, s, "ep_on", "")
	require.Equal(t, http.StatusOK, code, out)
	assert.Equal(t, 95.0, out["woken"])
	assert.Equal(t, false, out["reenabled"])
	assert.Equal(t, "closed", out["previous_circuit"], "a breaker never written is closed")

	perSlot := map[time.Time]int{}
	var last time.Time
	byAge(tc.signals)
	for _, sig := range tc.signals {
		nb := sig.arg.(delivery.RecoverSignal).NotBefore
		perSlot[nb]++
		assert.False(t, nb.Before(last), "an older delivery never gets a later slot")
		last = nb
	}
	assert.Len(t, perSlot, 10, "95 deliveries in 10 groups")
	for slot, n := range perSlot {
		assert.LessOrEqual(t, n, wake.Burst, "at %s", slot)
	}
	assert.Equal(t, now, tc.signals[0].arg.(delivery.RecoverSignal).NotBefore, "the first group at once")
	assert.Less(t, last.Sub(now), 5*time.Second, "the last group within 5s")
	assert.Equal(t, last.Sub(now).String(), out["spread"])
}

// A backlog over the immediate bound is not signalled in the request: the
// answer says how many and that they are paced, and the background
// wake-up sends each the recover update with who and why.
func TestRecoverPacesALargeBacklog(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tc := &fakeTemporal{executions: waitingExecutions(8, now.Add(-time.Hour))}
	s := newTestServer(t, tc)
	s.now = func() time.Time { return now }
	s.recoverImmediate = 5

	code, out := postRecover(t, s, "ep_on", `{"reason": "backlog"}`)
	require.Equal(t, http.StatusOK, code, out)
	assert.Equal(t, 8.0, out["woken"])
	assert.Equal(t, true, out["paced"])
	assert.NotContains(t, out, "spread", "no fixed spread: as fast as they drain")
	var updates []sentSignal
	require.Eventually(t, func() bool { updates = tc.sent(); return len(updates) == 8 }, 10*time.Second, 5*time.Millisecond)
	assert.Empty(t, tc.signals)
	by := "api-key:" + authz.HashToken("k")[:8]
	byAge(updates)
	for i, u := range updates {
		assert.Equal(t, fmt.Sprintf("dlv_%02d", i), u.id)
		assert.Equal(t, delivery.UpdateRecover, u.name)
		assert.Equal(t, delivery.RecoverSignal{By: by, Reason: "backlog"}, u.arg)
	}

	// At the bound it still signals, within the spread.
	tc.executions = waitingExecutions(5, now.Add(-time.Hour))
	code, out = postRecover(t, s, "ep_on", "")
	require.Equal(t, http.StatusOK, code, out)
	assert.Equal(t, false, out["paced"])
	assert.Len(t, tc.signals, 5)
}

// wake.Settle after its first list, a wake-up looks again and wakes a
// delivery visibility had not yet shown waiting, if the endpoint still
// takes attempts: not once its circuit opened again.
func TestWakeLooksAgainForTheLate(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	late := &workflowpb.WorkflowExecutionInfo{Execution: &commonpb.WorkflowExecution{WorkflowId: "dlv_late", RunId: "run_late"}}
	tc := &fakeTemporal{executions: waitingExecutions(2, now.Add(-time.Hour)), later: []*workflowpb.WorkflowExecutionInfo{late}}
	s := newTestServer(t, tc)
	s.now = func() time.Time { return now }
	s.wakeSettle = 20 * time.Millisecond

	code, out := postRecover(t, s, "ep_on", `{"reason": "fixed"}`)
	require.Equal(t, http.StatusOK, code, out)
	assert.Equal(t, 2.0, out["woken"], "the first list's")
	var updates []sentSignal
	require.Eventually(t, func() bool { updates = tc.sent(); return len(updates) == 1 }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, "dlv_late", updates[0].id)
	assert.Equal(t, delivery.RecoverSignal{By: "api-key:" + authz.HashToken("k")[:8], Reason: "fixed"}, updates[0].arg)
	assert.Len(t, tc.listed(), 2)

	// Enabling looks again too, unless the circuit opened meanwhile.
	st := s.store.(*fakeStore)
	st.circuits["ep_off"] = circuit.Breaker{State: circuit.Open, Failures: 5, OpenUntil: now.Add(time.Minute)}
	s.wakeSettle = 200 * time.Millisecond
	require.Equal(t, http.StatusOK, patchEndpoint(t, s, "ep_off", `{"enabled": true}`))
	time.Sleep(500 * time.Millisecond)
	assert.Len(t, tc.listed(), 3, "no second look at a circuit that is open")
	assert.Len(t, tc.sent(), 1)
}

// byAge orders the signals as their deliveries' ages (dlv_00 is the
// oldest of waitingExecutions).
func byAge(signals []sentSignal) {
	slices.SortFunc(signals, func(a, b sentSignal) int { return strings.Compare(a.id, b.id) })
}

// A delivery that ended between the list and its signal is skipped; a
// Temporal that cannot be reached is a 503 (recover again to finish).
func TestRecoverSignalFailures(t *testing.T) {
	tc := &fakeTemporal{executions: waitingExecutions(3, time.Now()), signalErr: map[string]error{
		"dlv_01": serviceerror.NewNotFound("workflow execution already completed"),
	}}
	s := newTestServer(t, tc)
	code, out := postRecover(t, s, "ep_on", "")
	require.Equal(t, http.StatusOK, code, out)
	assert.Equal(t, 2.0, out["woken"])

	tc.signals, tc.signalErr = nil, map[string]error{"dlv_00": errors.New("frontend unavailable")}
	code, out = postRecover(t, s, "ep_on", "")
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

// Enabling a disabled endpoint wakes the deliveries it held, with who and
// "endpoint enabled"; a patch that leaves the switch as it was wakes
// nothing, and a wake-up that fails leaves the change stored.
func TestEnablingWakesTheHeld(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tc := &fakeTemporal{executions: waitingExecutions(2, now.Add(-time.Hour))}
	s := newTestServer(t, tc)
	s.now = func() time.Time { return now }
	st := s.store.(*fakeStore)

	require.Equal(t, http.StatusOK, patchEndpoint(t, s, "ep_on", `{"description": "still on"}`))
	require.Equal(t, http.StatusOK, patchEndpoint(t, s, "ep_on", `{"enabled": true}`))
	assert.Empty(t, tc.lists, "already enabled: nothing held")

	require.Equal(t, http.StatusOK, patchEndpoint(t, s, "ep_off", `{"enabled": true}`))
	assert.True(t, st.endpoints["ep_off"].Enabled)
	require.Len(t, tc.lists, 1)
	assert.Contains(t, tc.lists[0], "HookdEndpointId = 'ep_off' AND HookdStatus = 'waiting'")
	require.Len(t, tc.signals, 2)
	byAge(tc.signals)
	by := "api-key:" + authz.HashToken("k")[:8]
	for i, sig := range tc.signals {
		assert.Equal(t, fmt.Sprintf("dlv_%02d", i), sig.id)
		assert.Equal(t, delivery.SignalRecover, sig.name)
		assert.Equal(t, delivery.RecoverSignal{By: by, Reason: "endpoint enabled", NotBefore: now}, sig.arg)
	}

	require.Equal(t, http.StatusOK, patchEndpoint(t, s, "ep_off", `{"enabled": false}`))
	assert.Len(t, tc.lists, 1, "disabling wakes nothing")
	tc.signalErr = map[string]error{"dlv_00": errors.New("frontend unavailable")}
	require.Equal(t, http.StatusOK, patchEndpoint(t, s, "ep_off", `{"enabled": true}`), "the switch is stored; the held check it within a minute")
	assert.True(t, st.endpoints["ep_off"].Enabled)
}
