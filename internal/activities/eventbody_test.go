package activities

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/eventkey"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/signing"
)

// A sealed body is opened with the key read beside the endpoint and sent
// signed as plaintext; once the key is gone (expunged, or the record
// pruned) nothing is sent and the attempt says expunged.
func TestAttemptOpensTheSealedBody(t *testing.T) {
	rc := newHeaderReceiver(t, "hookd-event-id", "evt_1")
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	key, err := eventkey.New()
	require.NoError(t, err)
	req := request("ep_1", 3)
	req.SealedBody, err = eventkey.Seal(key, "evt_1", `{"n":1}`)
	require.NoError(t, err)
	req.Body = ""
	a := newTestActivities(eps, nil, nil)

	eps.eventKeys = map[string]store.EventKey{"evt_1": {Key: key, Found: true}}
	at := a.attempt(context.Background(), req, 1, nil)
	require.Equal(t, delivery.OutcomeSuccess, at.Outcome, "%+v", at)
	v, err := signing.NewVerifier(eps.secret)
	require.NoError(t, err)
	_, _, err = v.Verify([]byte(`{"n":1}`), rc.requests()[0])
	require.NoError(t, err, "the plaintext is what is signed and sent")

	for name, k := range map[string]store.EventKey{"expunged": {Found: true, Expunged: true}, "pruned": {}} {
		eps.eventKeys = map[string]store.EventKey{"evt_1": k}
		at = a.attempt(context.Background(), req, 2, nil)
		require.Equal(t, delivery.OutcomeExpunged, at.Outcome, name)
		require.Contains(t, at.Error, "event expunged", name)
	}
	require.Len(t, rc.requests(), 1, "nothing sent without the key")

	other, err := eventkey.New()
	require.NoError(t, err)
	eps.eventKeys = map[string]store.EventKey{"evt_1": {Key: other, Found: true}}
	at = a.attempt(context.Background(), req, 2, nil)
	require.Equal(t, delivery.OutcomeRetryable, at.Outcome, "a key that does not open it is hookd's failure, retried")
	require.Equal(t, delivery.ClassInternal, at.ErrorClass)
	require.NotContains(t, at.Error, `{"n":1}`)
}

// A plaintext body (a delivery from before per-event keys, sealed by the
// payload codec alone) is sent as it is, but not once its event was
// expunged: the attempt says expunged and sends nothing, whether or not
// the expunge signal reached the run first.
func TestAttemptRefusesAnExpungedPlaintextBody(t *testing.T) {
	rc := newHeaderReceiver(t, "hookd-event-id", "evt_1")
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	req := request("ep_1", 3)
	a := newTestActivities(eps, nil, nil)

	for name, k := range map[string]store.EventKey{"no record": {}, "record without a key": {Found: true}} {
		eps.eventKeys = map[string]store.EventKey{"evt_1": k}
		at := a.attempt(context.Background(), req, 1, nil)
		require.Equal(t, delivery.OutcomeSuccess, at.Outcome, "%s: %+v", name, at)
	}
	eps.eventKeys = map[string]store.EventKey{"evt_1": {Found: true, Expunged: true}}
	at := a.attempt(context.Background(), req, 2, nil)
	require.Equal(t, delivery.OutcomeExpunged, at.Outcome)
	require.Len(t, rc.requests(), 2, "nothing sent once expunged")
}
