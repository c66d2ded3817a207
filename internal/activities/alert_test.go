package activities

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

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/store/storetest"
	"github.com/hookd/hookd/internal/testkit"
	"github.com/hookd/hookd/signing"
)

// The attempt that opens a circuit (here the first attempt, a local
// activity) records the unhealthy event in the store's outbox in the
// transaction that opens it: no process stopping in between drops it.
func TestCircuitAlertRecordedWithTheChange(t *testing.T) {
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

	acts, err := New(Config{
		Endpoints: db,
		Temporal:  testkit.DownTemporal{},
		HTTP:      NewHTTPClient(Guard{AllowLoopback: true}),
		Circuit:   circuit.Policy{Threshold: 1, BaseCooldown: time.Minute, MaxCooldown: time.Minute},
	})
	require.NoError(t, err)
	req := delivery.Request{DeliveryID: "dlv_alert", EventID: "evt_alert", EventType: "t.alert", EndpointID: ep.ID, Body: `{}`, Schedule: []time.Duration{time.Second}, Timeout: 5 * time.Second}

	at, err := acts.FirstAttempt(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, delivery.OutcomeRetryable, at.Outcome)
	b, err := db.Circuit(ctx, ep.ID)
	require.NoError(t, err)
	require.Equal(t, circuit.Open, b.State, "the attempt opened the circuit")

	got, err := db.ClaimOpEvents(ctx, time.Now(), time.Minute, 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, opevents.EndpointUnhealthy, got[0].Type)
	var h opevents.Health
	require.NoError(t, json.Unmarshal(got[0].Body, &h))
	assert.Equal(t, ep.ID, h.EndpointID)
	assert.Equal(t, opevents.ReasonCircuit, h.Reason)
	require.NotNil(t, h.Circuit)
	assert.Equal(t, "open", h.Circuit.State)
	assert.Equal(t, 1, h.Circuit.Failures)
	assert.Nil(t, h.SuccessRate)
}
