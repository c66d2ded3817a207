package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRedriveIntoAnOpenCircuitSaysSo: a redrive accepted while the
// endpoint's circuit is open answers held_by "circuit_open" with the
// cooldown's end, instead of a silent 202.
func TestRedriveIntoAnOpenCircuitSaysSo(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	// Permanent failures for held.dead (a dead letter at once), 503 for
	// the rest (they open the circuit).
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("hookd-event-type"), "held.dead") {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	schedule := []string{"1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s"}
	api.createEndpoint(map[string]any{"url": srv.URL, "event_types": []string{"held.*"}, "retry_schedule": schedule})
	dead := api.send(`{"type":"held.dead","payload":{}}`).Deliveries[0].ID
	require.Equal(t, "failed", api.waitDelivery(dead, 10*time.Second).Status)
	var waiting []string
	for range 3 {
		waiting = append(waiting, api.send(`{"type":"held.down","payload":{}}`).Deliveries[0].ID)
	}

	var got struct {
		DeliveryID string     `json:"delivery_id"`
		HeldBy     string     `json:"held_by"`
		HeldUntil  *time.Time `json:"held_until"`
	}
	require.Eventually(t, func() bool {
		// The circuit opens after five failures; its cooldown starts at 2s.
		var d waitingDelivery
		if api.do("GET", "/v1/deliveries/"+waiting[0], nil, &d) != http.StatusOK || d.WaitReason != "circuit open" ||
			time.Until(d.NextAttemptAt) < time.Second {
			return false
		}
		got.HeldBy = ""
		status := api.do("POST", "/v1/dead-letters/"+dead+"/redrive", `{"reason":"try again"}`, &got)
		require.Contains(t, []int{http.StatusAccepted, http.StatusNotFound}, status) // 404 once redriven
		return got.HeldBy != ""
	}, 40*time.Second, 100*time.Millisecond, "no redrive answered held_by")
	require.Equal(t, "circuit_open", got.HeldBy)
	require.NotNil(t, got.HeldUntil)
	require.True(t, got.HeldUntil.After(time.Now().Add(-time.Second)), "held until %s", got.HeldUntil)
}
