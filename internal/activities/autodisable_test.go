package activities

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
)

// emitted records the operational events the activities emit.
type emitted struct {
	mu     sync.Mutex
	events []opevents.Event
}

func (e *emitted) Emit(_ context.Context, ev opevents.Event) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, ev)
	return nil
}

func (e *emitted) types() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.events {
		out = append(out, ev.Type)
	}
	return out
}

func answering(t *testing.T, status int) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A 410 Gone disables the endpoint at once with reason gone, emits
// hookd.endpoint.disabled, and holds the delivery that got it as a
// disabled endpoint's: deferred, no attempt spent, not failed.
func TestGoneDisablesAndHolds(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_gone", TenantID: "acme", URL: answering(t, http.StatusGone), Enabled: true})
	a := newTestActivities(eps, nil, func() time.Time { return now })
	req := delivery.Request{DeliveryID: "dlv_1", EventType: "t", EndpointID: "ep_gone", Body: "{}", Schedule: []time.Duration{time.Minute}, Timeout: 5 * time.Second}

	at, err := a.FirstAttempt(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, delivery.OutcomeDeferred, at.Outcome)
	assert.Equal(t, delivery.WaitDisabled, at.DelayReason)
	assert.Equal(t, delivery.VerdictWait, delivery.Judge(at, req.Attempts()), "held, not counted")
	ep, err := eps.GetEndpoint(context.Background(), "ep_gone")
	require.NoError(t, err)
	assert.False(t, ep.Enabled)
	assert.Equal(t, opevents.DisabledGone, ep.DisabledReason)
	require.Equal(t, []string{opevents.EndpointDisabled}, eps.recorded(), "recorded with the change")
	var body opevents.EndpointChange
	require.NoError(t, json.Unmarshal(eps.outbox[0].Body, &body))
	assert.Equal(t, "gone", body.Reason)
	assert.Equal(t, "gone", body.DisabledReason)
	assert.Equal(t, "acme", eps.outbox[0].TenantID)

	// The next attempt is held by the switch, nothing sent.
	at, err = a.FirstAttempt(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, delivery.WaitDisabled, at.DelayReason)
	assert.Len(t, eps.recorded(), 1, "disabled once")
}

// An endpoint whose attempts fail with no success for the auto-disable
// period is disabled with reason auto; a success in between starts the
// period again; zero never disables.
func TestAutoDisableAfterFailingTooLong(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := start
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_down", URL: answering(t, http.StatusServiceUnavailable), Enabled: true})
	a := newTestActivities(eps, nil, func() time.Time { return now })
	a.circuit = circuit.Policy{Threshold: 1000, BaseCooldown: time.Minute, MaxCooldown: time.Minute}
	a.autoDisableAfter = time.Hour
	req := delivery.Request{DeliveryID: "dlv_1", EventType: "t", EndpointID: "ep_down", Body: "{}", Schedule: []time.Duration{time.Minute}, Timeout: 5 * time.Second}

	attempt := func(at time.Time) delivery.Attempt {
		now = at
		got, err := a.FirstAttempt(context.Background(), req)
		require.NoError(t, err)
		return got
	}
	assert.Equal(t, delivery.OutcomeRetryable, attempt(start).Outcome)
	assert.Equal(t, delivery.OutcomeRetryable, attempt(start.Add(59*time.Minute)).Outcome)
	ep, _ := eps.GetEndpoint(context.Background(), "ep_down")
	require.True(t, ep.Enabled, "not failing for an hour yet")

	assert.Equal(t, delivery.OutcomeRetryable, attempt(start.Add(time.Hour)).Outcome, "the attempt that tips it is an ordinary failure")
	ep, _ = eps.GetEndpoint(context.Background(), "ep_down")
	require.False(t, ep.Enabled)
	require.Equal(t, opevents.DisabledAuto, ep.DisabledReason)
	require.Equal(t, []string{opevents.EndpointDisabled}, eps.recorded())
	assert.Equal(t, delivery.WaitDisabled, attempt(start.Add(2*time.Hour)).DelayReason, "then held")

	// Zero: never.
	eps.setBreaker("ep_down", circuit.Breaker{State: circuit.Closed, Failures: 1, FailingSince: start})
	ep.Enabled, ep.DisabledReason = true, ""
	eps.endpoints["ep_down"] = *ep
	a.autoDisableAfter = 0
	assert.Equal(t, delivery.OutcomeRetryable, attempt(start.Add(1000*time.Hour)).Outcome)
	ep, _ = eps.GetEndpoint(context.Background(), "ep_down")
	require.True(t, ep.Enabled)
}
