package e2e

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type health struct {
	Circuit             string     `json:"circuit"`
	ConsecutiveFailures int        `json:"consecutive_failures"`
	CooldownEndsAt      *time.Time `json:"cooldown_ends_at"`
	PendingDeliveries   int        `json:"pending_deliveries"`
	DeadLetters         int        `json:"dead_letters"`
}

// countingDown is a receiver that answers 503 while down and 200 when up,
// and records when each request arrived.
type countingDown struct {
	mu   sync.Mutex
	up   bool
	hits []time.Time
	ok   map[string]int
}

func (c *countingDown) handler(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hits = append(c.hits, time.Now())
	if !c.up {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	c.ok[r.Header.Get("webhook-id")]++
	w.WriteHeader(http.StatusOK)
}

func (c *countingDown) since(t time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, h := range c.hits {
		if !h.Before(t) {
			n++
		}
	}
	return n
}

// The receiver goes down: after five failures the circuit opens; during
// the cooldown no request reaches the receiver; then exactly one probe;
// the probe fails and the cooldown doubles; the receiver comes back and
// every pending delivery arrives, none dead-lettered by the circuit.
// (The shared instance uses a 2s base cooldown.)
func TestCircuitBreaker(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := &countingDown{ok: map[string]int{}}
	srv := serve(t, http.HandlerFunc(rc.handler))
	schedule := []string{"1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s"}
	ep := api.createEndpoint(map[string]any{"url": srv.URL, "event_types": []string{"cb.test"}, "retry_schedule": schedule})
	var ids []string
	for range 3 {
		ids = append(ids, api.send(`{"type":"cb.test","payload":{}}`).Deliveries[0].ID)
	}

	var h health
	require.Eventually(t, func() bool {
		return api.do("GET", "/v1/endpoints/"+ep.ID+"/health", nil, &h) == http.StatusOK && h.Circuit == "open"
	}, 15*time.Second, 20*time.Millisecond)
	require.GreaterOrEqual(t, h.ConsecutiveFailures, 5)
	require.NotNil(t, h.CooldownEndsAt)
	cooldownEnd := *h.CooldownEndsAt
	// Attempts already in flight when it opened may still land; none after.
	time.Sleep(200 * time.Millisecond)
	during := time.Now()
	time.Sleep(time.Until(cooldownEnd) - 100*time.Millisecond)
	require.Zero(t, rc.since(during), "requests during the cooldown")

	// One probe after the cooldown; it fails and re-opens with 4s.
	require.Eventually(t, func() bool { return rc.since(cooldownEnd.Add(-50*time.Millisecond)) >= 1 }, 3*time.Second, 20*time.Millisecond)
	time.Sleep(time.Second)
	require.Equal(t, 1, rc.since(cooldownEnd.Add(-50*time.Millisecond)), "exactly one probe")
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+ep.ID+"/health", nil, &h))
	require.Equal(t, "open", h.Circuit)
	require.NotNil(t, h.CooldownEndsAt)
	require.InDelta(t, 4.0, h.CooldownEndsAt.Sub(cooldownEnd).Seconds(), 1.0, "cooldown doubled")

	rc.mu.Lock()
	rc.up = true
	rc.mu.Unlock()
	for _, id := range ids {
		d := api.waitDelivery(id, 30*time.Second)
		require.Equal(t, "delivered", d.Status, id)
		require.LessOrEqual(t, d.Attempts, 11)
	}
	rc.mu.Lock()
	for _, id := range ids {
		require.Equal(t, 1, rc.ok[id])
	}
	rc.mu.Unlock()
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+ep.ID+"/health", nil, &h))
	require.Equal(t, "closed", h.Circuit)
	require.Zero(t, h.ConsecutiveFailures)
	require.Zero(t, h.DeadLetters)
}

// Disabling an endpoint holds its deliveries without attempts; enabling it
// lets them resume.
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
	// A disabled endpoint matches no new events...
	require.Empty(t, api.send(`{"type":"off.test","payload":{}}`).Deliveries)
	// ...and the delivery already under way waits without attempts.
	time.Sleep(3 * time.Second)
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/deliveries/"+id, nil, &d))
	require.Equal(t, "pending", d.Status)
	require.Equal(t, 1, d.Attempts, "no attempt while disabled")

	sw.failStatus.Store(0)
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": true}, nil))
	d = api.waitDelivery(id, 10*time.Second)
	require.Equal(t, "delivered", d.Status)
	require.Equal(t, 2, d.Attempts)
	require.Equal(t, map[string]int{id: 1}, sw.delivered())
}
