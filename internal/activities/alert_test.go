package activities_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/store/storetest"
	"github.com/hookd/hookd/signing"
)

// heldSink is a sink that takes each event only when the test lets it.
type heldSink struct {
	release chan struct{}
	got     chan ingest.Event
}

func (s *heldSink) Publish(ctx context.Context, ev ingest.Event) (ingest.Result, error) {
	select {
	case <-s.release:
	case <-ctx.Done():
		return ingest.Result{}, ctx.Err()
	}
	s.got <- ev
	return ingest.Result{EventID: ev.ID}, nil
}

// The attempt that opens a circuit (here the first attempt, a local
// activity holding its workflow task) hands the unhealthy event over and
// returns while the event is still waiting to be published.
func TestCircuitAlertDoesNotHoldTheAttempt(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hookd.db"), storetest.Key(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	t.Cleanup(srv.Close)
	secret, err := signing.NewSecret()
	require.NoError(t, err)
	ep := &store.Endpoint{ID: "ep_alert", URL: srv.URL, Enabled: true, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	require.NoError(t, db.CreateEndpoint(ctx, ep, secret))

	sink := &heldSink{release: make(chan struct{}), got: make(chan ingest.Event, 1)}
	events := opevents.NewPublisher(sink, nil)
	runCtx, stopEvents := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		events.Run(runCtx)
		close(stopped)
	}()
	t.Cleanup(func() {
		stopEvents()
		<-stopped
	})
	acts := activities.New(activities.Config{
		Endpoints: db,
		HTTP:      activities.NewHTTPClient(activities.Guard{AllowLoopback: true}),
		Circuit:   circuit.Policy{Threshold: 1, BaseCooldown: time.Minute, MaxCooldown: time.Minute},
		Events:    events,
	})
	req := delivery.Request{DeliveryID: "dlv_alert", EventID: "evt_alert", EventType: "t.alert", EndpointID: ep.ID, Body: `{}`, Schedule: []time.Duration{time.Second}, Timeout: 5 * time.Second}

	done := make(chan delivery.Attempt, 1)
	go func() {
		at, _ := acts.FirstAttempt(ctx, req)
		done <- at
	}()
	select {
	case at := <-done:
		assert.Equal(t, delivery.OutcomeRetryable, at.Outcome)
	case <-time.After(10 * time.Second):
		t.Fatal("the attempt waited for the alert to be published")
	}
	b, err := db.Circuit(ctx, ep.ID)
	require.NoError(t, err)
	require.Equal(t, circuit.Open, b.State, "the attempt opened the circuit")

	close(sink.release)
	select {
	case ev := <-sink.got:
		assert.Equal(t, opevents.EndpointUnhealthy, ev.Type)
		var h opevents.Health
		require.NoError(t, json.Unmarshal([]byte(ev.Body), &h))
		assert.Equal(t, ep.ID, h.EndpointID)
		assert.Equal(t, opevents.ReasonCircuit, h.Reason)
		require.NotNil(t, h.Circuit)
		assert.Equal(t, "open", h.Circuit.State)
		assert.Equal(t, 1, h.Circuit.Failures)
		assert.Nil(t, h.SuccessRate)
	case <-time.After(10 * time.Second):
		t.Fatal("the alert was never published")
	}
}
