package receiver

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/signing"
)

// mailFrameProfile is a receiver contract of its own: a prefixed hex HMAC
// of the raw body and headers of its own names.
var mailFrameProfile = signing.Profile{Scheme: signing.SchemeHMACSHA256, Header: "MailFrame-Signature", Prefix: "sha256=",
	DeliveryIDHeader: "X-MailFrame-Delivery-Id", EventIDHeader: "X-MailFrame-Event-Id", AttemptHeader: "X-MailFrame-Attempt"}

// postfleetProfile signs "{timestamp}.{body}", base64.
var postfleetProfile = signing.Profile{Scheme: signing.SchemeHMACSHA256, Header: "Postfleet-Signature", Encoding: signing.EncodingBase64,
	Content: signing.ContentTimestampBody, TimestampHeader: "Postfleet-Timestamp"}

// macOf is HMAC-SHA256 under the secret string itself, from the formula.
func macOf(secret, content string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(content))
	return m.Sum(nil)
}

func TestProfileVerifierMailFrame(t *testing.T) {
	h := http.Header{}
	h.Set("MailFrame-Signature", "sha256="+hex.EncodeToString(macOf(vecSecret, vec.Body)))
	h.Set("X-MailFrame-Delivery-Id", "dlv_1")
	h.Set("X-MailFrame-Event-Id", "evt_1")
	h.Set("hookd-event-type", "order.created")
	v, err := NewProfileVerifier(mailFrameProfile, []string{vecSecret})
	require.NoError(t, err)
	d, err := v.Verify([]byte(vec.Body), h)
	require.NoError(t, err)
	assert.Equal(t, "dlv_1", d.ID)
	assert.Equal(t, "evt_1", d.EventID)
	assert.Equal(t, "order.created", d.EventType)
	assert.True(t, d.Timestamp.IsZero(), "no timestamp sent")

	_, err = v.Verify([]byte(vec.Body+"x"), h)
	require.ErrorIs(t, err, ErrNoMatch)
	h.Del("X-MailFrame-Delivery-Id")
	_, err = v.Verify([]byte(vec.Body), h)
	require.ErrorIs(t, err, ErrMissingHeader)
}

func TestProfileVerifierPostfleet(t *testing.T) {
	now := time.Now()
	stamp := strconv.FormatInt(now.Unix(), 10)
	other, err := signing.NewSecret()
	require.NoError(t, err)
	h := http.Header{}
	h.Set("Postfleet-Signature", base64.StdEncoding.EncodeToString(macOf(other, stamp+"."+vec.Body))+","+
		base64.StdEncoding.EncodeToString(macOf(vecSecret, stamp+"."+vec.Body)))
	h.Set("Postfleet-Timestamp", stamp)
	h.Set("webhook-id", "dlv_2")
	for _, secret := range []string{vecSecret, other} {
		v, err := NewProfileVerifier(postfleetProfile, []string{secret})
		require.NoError(t, err)
		d, err := v.Verify([]byte(vec.Body), h)
		require.NoError(t, err, "either signature of a rotation verifies")
		assert.Equal(t, "dlv_2", d.ID)
		assert.Equal(t, now.Unix(), d.Timestamp.Unix())
	}
	v, err := NewProfileVerifier(postfleetProfile, []string{vecSecret}, WithClock(func() time.Time { return now.Add(6 * time.Minute) }))
	require.NoError(t, err)
	_, err = v.Verify([]byte(vec.Body), h)
	require.ErrorIs(t, err, ErrTooOld)
	v, err = NewProfileVerifier(postfleetProfile, []string{vecSecret}, WithTolerance(10*time.Minute),
		WithClock(func() time.Time { return now.Add(6 * time.Minute) }))
	require.NoError(t, err)
	_, err = v.Verify([]byte(vec.Body), h)
	require.NoError(t, err)
}

func TestNewProfileVerifierErrors(t *testing.T) {
	_, err := NewProfileVerifier(mailFrameProfile, nil)
	require.ErrorIs(t, err, ErrNoSecrets)
	_, err = NewProfileVerifier(signing.Profile{Scheme: signing.SchemeHMACSHA256, Encoding: "hex"}, []string{vecSecret})
	var pe *signing.ProfileError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "header", pe.Field)
	v, err := NewProfileVerifier(signing.StandardWebhooks, []string{vecSecret})
	require.NoError(t, err, "the standard profile is the default verifier")
	_, err = v.Verify([]byte(vec.Body), vecHeader(vec.ID, strconv.FormatInt(time.Now().Unix(), 10), vec.Signature))
	require.ErrorIs(t, err, ErrNoMatch)
}

func TestMiddlewareWithProfile(t *testing.T) {
	v, err := NewProfileVerifier(mailFrameProfile, []string{vecSecret})
	require.NoError(t, err)
	var c captureHandler
	srv := Middleware(v, MiddlewareOptions{})(&c)
	send := func(sig string) int {
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader([]byte(vec.Body)))
		r.Header.Set("MailFrame-Signature", sig)
		r.Header.Set("X-MailFrame-Delivery-Id", "dlv_3")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		return w.Code
	}
	assert.Equal(t, http.StatusUnauthorized, send("sha256=00"))
	assert.Equal(t, http.StatusNoContent, send("sha256="+hex.EncodeToString(macOf(vecSecret, vec.Body))))
	require.NotNil(t, c.d)
	assert.Equal(t, "dlv_3", c.d.ID)
	assert.Equal(t, vec.Body, c.body)
}
