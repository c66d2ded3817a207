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
	var (
		mu      sync.Mutex
		seen    = map[string]int{}
		arrived = make(chan struct{}, 8)
		release = make(chan struct{})
	)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("webhook-id")]++
		mu.Unlock()
		arrived <- struct{}{}
		<-release
		w.WriteHeader(http.StatusOK)
	}))
	ep := api.createEndpoint(map[string]any{"url": srv.URL, "event_types": []string{"race.test"}})
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": false}, nil))
	id := api.send(`{"type":"race.test","payload":{}}`).Deliveries[0].ID
	waitHeld(t, api, id)
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": true}, nil))
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the enabled endpoint's held delivery did not arrive")
	}
	// The wake-up attempt is at the receiver: a recover signal lands now.
	require.NoError(t, shared.Client.SignalWorkflow(context.Background(), id, "", delivery.SignalRecover, delivery.RecoverSignal{By: "test", Reason: "race"}))
	time.Sleep(200 * time.Millisecond)
	close(release)
	d := api.waitDelivery(id, 10*time.Second)
	require.EqualValues(t, "delivered", d.Status)
	time.Sleep(time.Second)
	mu.Lock()
	defer mu.Unlock()
	if seen[id] != 1 {
		t.Fatalf("delivery %s arrived %d times\n%s", id, seen[id], historyTrace(t, shared, id))
	}
}

// A signal that reaches a delivery while its first attempt is at the
// receiver does not send that attempt again.
func TestSignalDuringFirstAttempt(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	var (
		mu      sync.Mutex
		seen    = map[string]int{}
		arrived = make(chan struct{}, 8)
		release = make(chan struct{})
	)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("webhook-id")]++
		mu.Unlock()
		arrived <- struct{}{}
		<-release
		w.WriteHeader(http.StatusOK)
	}))
	api.createEndpoint(map[string]any{"url": srv.URL, "event_types": []string{"race1.test"}})
	id := api.send(`{"type":"race1.test","payload":{}}`).Deliveries[0].ID
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the first attempt did not arrive")
	}
	require.NoError(t, shared.Client.SignalWorkflow(context.Background(), id, "", delivery.SignalRecover, delivery.RecoverSignal{By: "test", Reason: "race"}))
	time.Sleep(200 * time.Millisecond)
	close(release)
	d := api.waitDelivery(id, 10*time.Second)
	require.EqualValues(t, "delivered", d.Status)
	time.Sleep(time.Second)
	mu.Lock()
	defer mu.Unlock()
	if seen[id] != 1 {
		t.Fatalf("delivery %s arrived %d times\n%s", id, seen[id], historyTrace(t, shared, id))
	}
}
