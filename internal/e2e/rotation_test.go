package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/signing"
)

// verifyErr verifies a hit with the given secrets only.
func verifyErr(t *testing.T, h hit, secrets ...string) error {
	t.Helper()
	v, err := signing.NewVerifier(secrets...)
	require.NoError(t, err)
	_, _, err = v.Verify(h.Body, h.Header)
	return err
}

// During a rotation's overlap every delivery carries a signature for the
// old and the new secret, so a receiver holding either verifies it; after
// the overlap only the new secret signs.
func TestRotationOverlap(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, nil)
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"rotate.overlap"}})
	oldSecret := ep.Secret

	var rot wire.RotatedSecret
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+ep.ID+"/secret/rotate", map[string]any{"overlap": "3s"}, &rot))
	require.Equal(t, ep.ID, rot.EndpointID)
	require.True(t, strings.HasPrefix(rot.Secret, "whsec_"))
	require.NotEqual(t, oldSecret, rot.Secret)
	require.WithinDuration(t, time.Now().Add(3*time.Second), rot.PreviousExpiresAt, time.Second)

	during := api.send(`{"type":"rotate.overlap","payload":{"phase":"during"}}`)
	require.EqualValues(t, "delivered", api.waitDelivery(during.Deliveries[0].ID, 5*time.Second).Status)
	require.True(t, time.Now().Before(rot.PreviousExpiresAt), "the first delivery took longer than the overlap")
	h := rc.Hits()[0]
	require.Len(t, strings.Fields(h.Header.Get(signing.HeaderSignature)), 2)
	require.NoError(t, verifyErr(t, h, oldSecret), "a receiver holding only the old secret")
	require.NoError(t, verifyErr(t, h, rot.Secret), "a receiver holding only the new secret")

	time.Sleep(time.Until(rot.PreviousExpiresAt) + 200*time.Millisecond)
	after := api.send(`{"type":"rotate.overlap","payload":{"phase":"after"}}`)
	require.EqualValues(t, "delivered", api.waitDelivery(after.Deliveries[0].ID, 5*time.Second).Status)
	h = rc.Hits()[1]
	require.Len(t, strings.Fields(h.Header.Get(signing.HeaderSignature)), 1)
	require.ErrorIs(t, verifyErr(t, h, oldSecret), signing.ErrNoMatch)
	require.NoError(t, verifyErr(t, h, rot.Secret))

	// A rotation without overlap retires the previous secret at once.
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+ep.ID+"/secret/rotate", map[string]any{"overlap": "0s"}, &rot))
	var e apiError
	require.Equal(t, http.StatusBadRequest, api.do("POST", "/v1/endpoints/"+ep.ID+"/secret/rotate", map[string]any{"overlap": "-1s"}, &e))
	require.Equal(t, "overlap", e.Error.Field)
	require.Equal(t, http.StatusNotFound, api.do("POST", "/v1/endpoints/ep_nosuchendpoint/secret/rotate", nil, &e))
}
