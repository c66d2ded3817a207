package activities

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/signing"
)

// An endpoint's hmac-sha256 profile replaces the Standard Webhooks
// headers with its own; the zero profile sends them as always.
func TestAttemptSignsWithTheEndpointsProfile(t *testing.T) {
	profile, err := signing.Profile{Scheme: signing.SchemeHMACSHA256, Header: "MailFrame-Signature", Prefix: "sha256=",
		DeliveryIDHeader: "X-MailFrame-Delivery-Id", EventIDHeader: "X-MailFrame-Event-Id", AttemptHeader: "X-MailFrame-Attempt"}.Normalize()
	require.NoError(t, err)
	rc := newHeaderReceiver(t, "X-MailFrame-Event-Id", "evt_1")
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true, Signing: profile})
	at := attemptOnce(t, newTestActivities(eps, nil, nil), "ep_1")
	require.Equal(t, delivery.OutcomeSuccess, at.Outcome, "%+v", at)
	got := rc.requests()[0]
	mac := hmac.New(sha256.New, []byte(eps.secret))
	mac.Write([]byte(`{"n":1}`))
	assert.Equal(t, "sha256="+hex.EncodeToString(mac.Sum(nil)), got.Get("MailFrame-Signature"))
	assert.Equal(t, "dlv_test", got.Get("X-MailFrame-Delivery-Id"))
	assert.Equal(t, "1", got.Get("X-MailFrame-Attempt"))
	assert.Equal(t, "order.created", got.Get("hookd-event-type"))
	assert.NotEmpty(t, got.Get("webhook-timestamp"))
	for _, name := range []string{"webhook-id", "webhook-signature", "hookd-event-id", "hookd-attempt"} {
		assert.Empty(t, got.Get(name), name)
	}

	rc = newHeaderReceiver(t, "hookd-event-id", "evt_1")
	eps = newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	require.Equal(t, delivery.OutcomeSuccess, attemptOnce(t, newTestActivities(eps, nil, nil), "ep_1").Outcome)
	v, err := signing.NewVerifier(eps.secret)
	require.NoError(t, err)
	_, _, err = v.Verify([]byte(`{"n":1}`), rc.requests()[0])
	require.NoError(t, err, "the zero profile signs Standard Webhooks")
}
