package e2e

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
)

// A recover signal that reaches a delivery while its wake-up attempt is
// at the receiver does not send that attempt again: the receiver sees
// the delivery once.
func TestSignalDuringWakeAttempt(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newGatedReceiver(t)
	ep := api.createEndpoint(map[string]any{"url": rc.url, "event_types": []string{"race.test"}})
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": false}, nil))
	id := api.send(`{"type":"race.test","payload":{}}`).Deliveries[0].ID
	waitHeld(t, api, id)
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": true}, nil))
	rc.signalDuringAttempt(t, api, id)
}

// A signal that reaches a delivery while its first attempt is at the
// receiver does not send that attempt again.
func TestSignalDuringFirstAttempt(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newGatedReceiver(t)
	api.createEndpoint(map[string]any{"url": rc.url, "event_types": []string{"race1.test"}})
	id := api.send(`{"type":"race1.test","payload":{}}`).Deliveries[0].ID
	rc.signalDuringAttempt(t, api, id)
}

// gatedReceiver holds every request until released, and counts them by
// webhook-id.
type gatedReceiver struct {
	url     string
	mu      sync.Mutex
	seen    map[string]int
	arrived chan struct{}
	release chan struct{}
}

func newGatedReceiver(t *testing.T) *gatedReceiver {
	rc := &gatedReceiver{seen: map[string]int{}, arrived: make(chan struct{}, 8), release: make(chan struct{})}
	rc.url = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		rc.seen[r.Header.Get("webhook-id")]++
		rc.mu.Unlock()
		rc.arrived <- struct{}{}
		<-rc.release
		w.WriteHeader(http.StatusOK)
	})).URL
	return rc
}

// signalDuringAttempt waits for delivery id's attempt to reach the
// receiver, sends the delivery a recover signal while the receiver holds
// it, lets it answer, and checks the receiver got the delivery once.
func (rc *gatedReceiver) signalDuringAttempt(t *testing.T, api *apiClient, id string) {
	t.Helper()
	select {
	case <-rc.arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the attempt did not arrive")
	}
	require.NoError(t, shared.Client.SignalWorkflow(context.Background(), id, "", delivery.SignalRecover, delivery.RecoverSignal{By: "test", Reason: "race"}))
	time.Sleep(200 * time.Millisecond) // the signal is in before the attempt ends
	close(rc.release)
	require.EqualValues(t, "delivered", api.waitDelivery(id, 10*time.Second).Status)
	time.Sleep(time.Second) // a second send would come now
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.seen[id] != 1 {
		t.Fatalf("delivery %s arrived %d times\n%s", id, rc.seen[id], historyTrace(t, shared, id))
	}
}
