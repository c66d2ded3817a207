package e2e

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/testkit"
)

// countingDown is a receiver that answers 503 while down and 200 when up,
// and counts the requests it got.
type countingDown struct {
	mu       sync.Mutex
	up       bool
	requests int
	ok       map[string]int
}

// back brings the receiver up: it answers 200 from now on.
func (c *countingDown) back() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.up = true
}

// deliveredOnce asserts that each of ids reached the receiver exactly once.
func (c *countingDown) deliveredOnce(t *testing.T, ids []string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		assert.Equal(t, 1, c.ok[id], id)
	}
}

func (c *countingDown) handler(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	if !c.up {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	c.ok[r.Header.Get("webhook-id")]++
	w.WriteHeader(http.StatusOK)
}

// The receiver goes down: after five failures the circuit opens; during
// the cooldown no request reaches the receiver; then exactly one probe;
// the probe fails and the cooldown doubles; the receiver comes back and
// every pending delivery arrives, none dead-lettered by the circuit.
// Timing is checked against what was recorded (the attempts' start times
// and the circuit's cooldown ends), not against wall-clock gaps.
func TestCircuitBreaker(t *testing.T) {
	t.Parallel()
	const baseCooldown = 2 * time.Second // the shared instance's policy
	api := newAPI(t)
	rc := &countingDown{ok: map[string]int{}}
	srv := serve(t, http.HandlerFunc(rc.handler))
	schedule := []string{"1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s"}
	ep := api.createEndpoint(map[string]any{"url": srv.URL, "event_types": []string{"cb.test"}, "retry_schedule": schedule})
	var ids []string
	for range 3 {
		ids = append(ids, api.send(`{"type":"cb.test","payload":{}}`).Deliveries[0].ID)
	}

	// The circuit opens. Every attempt that starts after we saw it open
	// (so after the opening was committed) must be held until it ends.
	var h health
	require.Eventually(t, func() bool {
		return api.do("GET", "/v1/endpoints/"+ep.ID+"/health", nil, &h) == http.StatusOK && h.Circuit == "open"
	}, 15*time.Second, 20*time.Millisecond)
	seenOpen := time.Now()
	require.GreaterOrEqual(t, h.ConsecutiveFailures, 5)
	require.NotZero(t, h.CooldownEndsAt)
	firstEnd := h.CooldownEndsAt

	// The probe after the cooldown fails and re-opens the circuit.
	require.Eventually(t, func() bool {
		return api.do("GET", "/v1/endpoints/"+ep.ID+"/health", nil, &h) == http.StatusOK &&
			h.Circuit == "open" && h.CooldownEndsAt.After(firstEnd)
	}, 15*time.Second, 20*time.Millisecond)
	secondEnd := h.CooldownEndsAt

	rc.back()
	var sent []attempt
	for _, id := range ids {
		d := api.waitDelivery(id, 30*time.Second)
		require.EqualValues(t, "delivered", d.Status, id)
		require.LessOrEqual(t, d.Attempts, 11)
		sent = append(sent, d.Timeline...)
	}
	rc.mu.Lock()
	require.Equal(t, rc.requests, len(sent), "every request the receiver saw is in a timeline")
	for _, id := range ids {
		require.Equal(t, 1, rc.ok[id])
	}
	rc.mu.Unlock()

	var held, probes []attempt
	for _, at := range sent {
		switch {
		case at.Start.Before(firstEnd.Add(-baseCooldown)):
		case at.Start.Before(seenOpen):
			// admitted while the opening was being committed: in flight
		case at.Start.Before(firstEnd):
			held = append(held, at)
		case at.Start.Before(secondEnd):
			probes = append(probes, at)
		}
	}
	require.Empty(t, held, "requests during the cooldown (%s..%s)", seenOpen, firstEnd)
	require.Len(t, probes, 1, "exactly one probe between %s and %s", firstEnd, secondEnd)
	// The failed probe re-opened the circuit for twice the base cooldown,
	// counted from when its failure was recorded, just after it ended.
	reopenedFor := secondEnd.Sub(attemptEnd(probes[0]))
	require.GreaterOrEqual(t, reopenedFor, 2*baseCooldown, "cooldown doubled")
	require.Less(t, reopenedFor, 3*baseCooldown, "cooldown doubled, not more")

	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+ep.ID+"/health", nil, &h))
	require.EqualValues(t, "closed", h.Circuit)
	require.Zero(t, h.ConsecutiveFailures)
	require.Zero(t, h.DeadLetters)
}

// Disabling an endpoint holds its deliveries without attempts, those
// under way and those of new events alike; enabling it lets them resume.
func TestDisabledEndpointWaits(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	sw := newSwitchable(http.StatusServiceUnavailable)
	srv := sw.server(t)
	ep := api.createEndpoint(map[string]any{"url": srv.URL, "event_types": []string{"off.test"}, "retry_schedule": []string{"1s"}})
	id := api.send(`{"type":"off.test","payload":{}}`).Deliveries[0].ID
	var d deliveryState
	require.Eventually(t, func() bool {
		return api.do("GET", "/v1/deliveries/"+id, nil, &d) == http.StatusOK && d.Attempts == 1
	}, 5*time.Second, 20*time.Millisecond)
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": false}, nil))
	// A new event to a disabled endpoint gets a delivery that is held...
	later := api.send(`{"type":"off.test","payload":{}}`).Deliveries
	require.Len(t, later, 1)
	held := waitHeld(t, api, later[0].ID)
	require.Zero(t, held.Attempts)
	// ...and the delivery already under way waits without attempts: its
	// next attempt was due and was held.
	require.Eventually(t, func() bool {
		return api.do("GET", "/v1/deliveries/"+id, nil, &d) == http.StatusOK && d.WaitReason == "endpoint disabled"
	}, 30*time.Second, 20*time.Millisecond)
	require.EqualValues(t, "pending", d.Status)
	require.Equal(t, 1, d.Attempts, "no attempt while disabled")

	sw.failStatus.Store(0)
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": true}, nil))
	d = api.waitDelivery(id, 10*time.Second)
	require.EqualValues(t, "delivered", d.Status)
	require.Equal(t, 2, d.Attempts)
	require.EqualValues(t, "delivered", api.waitDelivery(later[0].ID, 10*time.Second).Status)
	if got := sw.delivered(); got[id] != 1 || got[later[0].ID] != 1 {
		t.Fatalf("delivered %v, want each once\n%s:\n%s\n%s:\n%s", got, id, historyTrace(t, shared, id), later[0].ID, historyTrace(t, shared, later[0].ID))
	}
}

// Enabling a disabled endpoint wakes the deliveries it held at once: on a
// hookd checking a disabled endpoint once a minute (the default), the held
// delivery arrives within seconds of the PATCH, and its history says who
// woke it and why.
func TestEnablingWakesTheHeld(t *testing.T) {
	// Not parallel, as the codec tests: its own server runs before the
	// shared instance's parallel tests, not beside them.
	d := devAt(t, t.TempDir(), testkit.FreeAddr(t), app.PayloadConfig{}, "")
	t.Cleanup(func() { d.Stop(context.Background()) })
	api := &apiClient{t: t, dev: d}
	sw := newSwitchable(http.StatusServiceUnavailable)
	ep := api.createEndpoint(map[string]any{"url": sw.server(t).URL, "event_types": []string{"held.test"}, "retry_schedule": []string{"1s"}})
	id := api.send(`{"type":"held.test","payload":{}}`).Deliveries[0].ID
	var st deliveryState
	require.Eventually(t, func() bool {
		return api.do("GET", "/v1/deliveries/"+id, nil, &st) == http.StatusOK && st.Attempts == 1
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": false}, nil))
	require.Eventually(t, func() bool {
		return api.do("GET", "/v1/deliveries/"+id, nil, &st) == http.StatusOK && st.WaitReason == "endpoint disabled"
	}, 30*time.Second, 20*time.Millisecond)

	sw.failStatus.Store(0)
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": true}, nil))
	st = api.waitDelivery(id, 10*time.Second) // the check is a minute away
	require.EqualValues(t, "delivered", st.Status)
	require.Equal(t, map[string]int{id: 1}, sw.delivered())
	// A signal from the first list, or an update from the second look if
	// visibility did not yet show the delivery waiting at the first.
	sig, via := recoverIn(t, d, id)
	assert.NotEmpty(t, via)
	assert.EqualValues(t, "endpoint enabled", sig.Reason)
	assert.NotEmpty(t, sig.By)
}
