package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/signing"
)

// platformSigning is a migrating platform's contract, set once as the
// deployment's default: X-Platform-Signature is "v1=" and the base64
// HMAC-SHA256 of "{X-Platform-Timestamp}.{raw body}", keyed with the
// endpoint's secret as shown; the delivery ID in X-Platform-Delivery.
var platformSigning = signing.Profile{Scheme: signing.SchemeHMACSHA256, Header: "X-Platform-Signature", Prefix: "v1=",
	Encoding: signing.EncodingBase64, Content: signing.ContentTimestampBody, TimestampHeader: "X-Platform-Timestamp",
	DeliveryIDHeader: "X-Platform-Delivery"}

// platformValid verifies platformSigning from its formula alone
// (crypto/hmac): a recent timestamp, and the signature over it and the
// body.
func platformValid(secret string, h http.Header, body []byte) bool {
	stamp := h.Get("X-Platform-Timestamp")
	secs, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil || time.Since(time.Unix(secs, 0)).Abs() > 5*time.Minute {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(stamp + "." + string(body)))
	want := "v1=" + base64.StdEncoding.EncodeToString(m.Sum(nil))
	return hmac.Equal([]byte(h.Get("X-Platform-Signature")), []byte(want)) && h.Get("X-Platform-Delivery") != ""
}

// TestDefaultSigning runs hookd dev with --default-signing set to an
// hmac-sha256 profile: an endpoint created without signing gets it,
// shows it, and delivers what the platform's receivers verify; a change
// of anything else keeps it; an endpoint created with
// standard-webhooks keeps that.
func TestDefaultSigning(t *testing.T) {
	dev := ownDev(t, func(c *app.DevConfig) { c.DefaultSigning = platformSigning })
	api := &apiClient{t: t, dev: dev}
	var secret secretBox
	rc := newContractReceiver(t, func(h http.Header, body []byte) bool { return platformValid(secret.get(), h, body) })
	var ep endpoint
	require.Equal(t, http.StatusCreated, api.do("POST", "/v1/endpoints", map[string]any{"url": rc.URL,
		"event_types": []string{"platform.signed"}}, &ep))
	secret.set(ep.Secret)
	assert.Equal(t, wire.SigningProfile{Scheme: "hmac-sha256", Header: "X-Platform-Signature", Prefix: "v1=", Encoding: "base64",
		Content: "timestamp.body", TimestampHeader: "X-Platform-Timestamp", DeliveryIDHeader: "X-Platform-Delivery",
		EventIDHeader: "hookd-event-id", EventTypeHeader: "hookd-event-type", AttemptHeader: "hookd-attempt"}, ep.Signing)

	standard := newReceiver(t, nil)
	sw := api.createEndpoint(map[string]any{"url": standard.URL, "event_types": []string{"platform.signed"},
		"signing": map[string]string{"scheme": "standard-webhooks"}})

	// A change of anything else keeps the profile.
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"description": "migrated"}, nil))

	a := api.send(`{"type":"platform.signed","payload":{"order":"o_1","note":"héllo"}}`)
	require.Len(t, a.Deliveries, 2)
	for _, d := range a.Deliveries {
		require.EqualValues(t, "delivered", api.waitDelivery(d.ID, 15*time.Second).Status, d.EndpointID)
	}
	got := rc.Hits()
	require.Len(t, got, 1, "verified at the first attempt")
	for _, d := range a.Deliveries {
		if d.EndpointID == ep.ID {
			assert.Equal(t, d.ID, got[0].Header.Get("X-Platform-Delivery"))
		}
	}
	for _, name := range []string{"webhook-signature", "webhook-id", "webhook-timestamp"} {
		assert.Empty(t, got[0].Header.Get(name), name)
	}
	// Control: the same check refuses a body it was not signed for, and
	// a signature made with another key.
	assert.False(t, platformValid(ep.Secret, got[0].Header, append(got[0].Body, ' ')))
	assert.False(t, platformValid(strings.TrimPrefix(ep.Secret, "whsec_"), got[0].Header, got[0].Body))

	sh := standard.Hits()
	require.Len(t, sh, 1)
	verify(t, sh[0], sw.Secret)
	assert.Empty(t, sh[0].Header.Get("X-Platform-Signature"), "the explicit scheme wins over the default")
}
