package e2e

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// The receivers here verify with HMAC-SHA256 written from each contract's
// formula (crypto/hmac, never hookd's signing package), keyed with the
// endpoint's secret string as a receiver of such a contract is given it.

// hmacHex is hex(HMAC-SHA256(secret, content)).
func hmacHex(secret string, content []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(content)
	return hex.EncodeToString(m.Sum(nil))
}

// contractReceiver records every request and answers 200 when check
// accepts its headers and raw body, 401 otherwise.
type contractReceiver struct {
	*receiver
	mu       sync.Mutex
	verified int
}

func newContractReceiver(t *testing.T, check func(h http.Header, body []byte) bool) *contractReceiver {
	rc := &contractReceiver{receiver: &receiver{}}
	rc.Server = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.receiver.mu.Lock()
		rc.hits = append(rc.hits, hit{At: time.Now(), Header: r.Header.Clone(), Body: body})
		rc.receiver.mu.Unlock()
		if !check(r.Header, body) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		rc.mu.Lock()
		rc.verified++
		rc.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	return rc
}

// secretBox holds the secret a receiver verifies with, set once the
// endpoint exists.
type secretBox struct {
	mu sync.Mutex
	v  string
}

func (b *secretBox) set(s string) { b.mu.Lock(); b.v = s; b.mu.Unlock() }
func (b *secretBox) get() string  { b.mu.Lock(); defer b.mu.Unlock(); return b.v }

var mailFrameSigning = map[string]string{"scheme": "hmac-sha256", "header": "MailFrame-Signature", "prefix": "sha256=",
	"delivery_id_header": "X-MailFrame-Delivery-Id", "event_id_header": "X-MailFrame-Event-Id", "attempt_header": "X-MailFrame-Attempt"}

// mailFrameValid is MailFrame's contract: MailFrame-Signature is
// "sha256=" and the hex HMAC-SHA256 of the raw body.
func mailFrameValid(secret string, h http.Header, body []byte) bool {
	want := "sha256=" + hmacHex(secret, body)
	return hmac.Equal([]byte(h.Get("MailFrame-Signature")), []byte(want)) && h.Get("X-MailFrame-Delivery-Id") != ""
}

// An endpoint with MailFrame's profile delivers what MailFrame's own
// receivers verify, with MailFrame's identity headers and none of
// Standard Webhooks'.
func TestSigningProfileMailFrame(t *testing.T) {
	api := newAPI(t)
	var secret secretBox
	rc := newContractReceiver(t, func(h http.Header, body []byte) bool { return mailFrameValid(secret.get(), h, body) })
	var ep endpoint
	require.Equal(t, http.StatusCreated, api.do("POST", "/v1/endpoints", map[string]any{"url": rc.URL,
		"event_types": []string{"signing.mailframe"}, "signing": mailFrameSigning}, &ep))
	secret.set(ep.Secret)
	require.Equal(t, wire.SigningProfile{Scheme: "hmac-sha256", Header: "MailFrame-Signature", Prefix: "sha256=", Encoding: "hex",
		Content: "body", TimestampHeader: "webhook-timestamp", DeliveryIDHeader: "X-MailFrame-Delivery-Id",
		EventIDHeader: "X-MailFrame-Event-Id", EventTypeHeader: "hookd-event-type", AttemptHeader: "X-MailFrame-Attempt"}, ep.Signing)

	a := api.send(`{"event_id":"evt_mailframe_1","type":"signing.mailframe","payload":{"message":"héllo","n":1}}`)
	d := api.waitDelivery(a.Deliveries[0].ID, 15*time.Second)
	require.EqualValues(t, "delivered", d.Status, "the receiver verified it")
	require.Equal(t, 1, d.Attempts)
	got := rc.Hits()[0]
	require.Equal(t, a.Deliveries[0].ID, got.Header.Get("X-MailFrame-Delivery-Id"))
	require.Equal(t, "evt_mailframe_1", got.Header.Get("X-MailFrame-Event-Id"))
	require.Equal(t, "1", got.Header.Get("X-MailFrame-Attempt"))
	require.Equal(t, "signing.mailframe", got.Header.Get("hookd-event-type"))
	for _, name := range []string{"webhook-id", "webhook-signature", "hookd-event-id", "hookd-attempt"} {
		require.Empty(t, got.Header.Get(name), name)
	}

	// The control: the same receiver refuses a body it was not signed for.
	require.False(t, mailFrameValid(ep.Secret, got.Header, append(got.Body, ' ')))
}

// Postfleet's contract: HMAC-SHA256 over "${timestamp}.${rawBody}" in
// hex, the timestamp in its own header and recent.
func TestSigningProfilePostfleet(t *testing.T) {
	api := newAPI(t)
	var secret secretBox
	rc := newContractReceiver(t, func(h http.Header, body []byte) bool {
		stamp := h.Get("Postfleet-Timestamp")
		secs, err := strconv.ParseInt(stamp, 10, 64)
		if err != nil || time.Since(time.Unix(secs, 0)).Abs() > 5*time.Minute {
			return false
		}
		want := hmacHex(secret.get(), []byte(stamp+"."+string(body)))
		return hmac.Equal([]byte(h.Get("Postfleet-Signature")), []byte(want))
	})
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"signing.postfleet"},
		"signing": map[string]string{"scheme": "hmac-sha256", "header": "Postfleet-Signature", "content": "timestamp.body",
			"timestamp_header": "Postfleet-Timestamp"}})
	secret.set(ep.Secret)
	a := api.send(`{"type":"signing.postfleet","payload":{"parcel":"p_1"}}`)
	require.EqualValues(t, "delivered", api.waitDelivery(a.Deliveries[0].ID, 15*time.Second).Status)
	got := rc.Hits()[0]
	require.Equal(t, a.Deliveries[0].ID, got.Header.Get("webhook-id"), "the delivery ID under its default name")
	require.Empty(t, got.Header.Get("webhook-timestamp"), "the timestamp only under the profile's name")
}

// While a rotated secret overlaps, an hmac-sha256 header carries one
// signature per valid secret, comma-separated, each with the prefix: a
// receiver with either secret verifies the delivery.
func TestSigningProfileRotationOverlap(t *testing.T) {
	api := newAPI(t)
	var oldSecret, newSecret secretBox
	rc := newContractReceiver(t, func(h http.Header, body []byte) bool { return h.Get("MailFrame-Signature") != "" })
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"signing.rotate"}, "signing": mailFrameSigning})
	oldSecret.set(ep.Secret)
	var rot wire.RotatedSecret
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+ep.ID+"/secret/rotate", map[string]any{"overlap": "1h"}, &rot))
	newSecret.set(rot.Secret)

	a := api.send(`{"type":"signing.rotate","payload":{"n":1}}`)
	require.EqualValues(t, "delivered", api.waitDelivery(a.Deliveries[0].ID, 15*time.Second).Status)
	got := rc.Hits()[0]
	sigs := strings.Split(got.Header.Get("MailFrame-Signature"), ",")
	require.Len(t, sigs, 2, "one signature per valid secret: %q", got.Header.Get("MailFrame-Signature"))
	for _, s := range []string{oldSecret.get(), newSecret.get()} {
		want := "sha256=" + hmacHex(s, got.Body)
		require.Contains(t, sigs, want, "each secret's signature is there, prefixed")
	}
	require.NotEqual(t, sigs[0], sigs[1])

	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+ep.ID+"/secret/rotate", map[string]any{"overlap": "0s"}, &rot))
	b := api.send(`{"type":"signing.rotate","payload":{"n":2}}`)
	require.EqualValues(t, "delivered", api.waitDelivery(b.Deliveries[0].ID, 15*time.Second).Status)
	last := rc.Hits()[len(rc.Hits())-1]
	require.Equal(t, "sha256="+hmacHex(rot.Secret, last.Body), last.Header.Get("MailFrame-Signature"), "one secret, one signature")
}

// Every bad profile field is a 400 naming it, through the real API; a
// profile header that is one of the endpoint's custom headers too.
func TestSigningProfileValidation(t *testing.T) {
	api := newAPI(t)
	rc := newReceiver(t, nil)
	for field, signing := range map[string]map[string]any{
		"signing.scheme":             {"scheme": "hmac-md5"},
		"signing.header":             {"scheme": "hmac-sha256"},
		"signing.encoding":           {"scheme": "hmac-sha256", "header": "X-Sig", "encoding": "base32"},
		"signing.content":            {"scheme": "hmac-sha256", "header": "X-Sig", "content": "id.timestamp.body"},
		"signing.prefix":             {"scheme": "hmac-sha256", "header": "X-Sig", "prefix": "sha256 ="},
		"signing.timestamp_header":   {"scheme": "hmac-sha256", "header": "X-Sig", "timestamp_header": "Transfer-Encoding"},
		"signing.delivery_id_header": {"scheme": "hmac-sha256", "header": "X-Sig", "delivery_id_header": "Bad Name"},
		"signing.attempt_header":     {"scheme": "hmac-sha256", "header": "X-Sig", "attempt_header": "X-SIG"},
		"signing.event_id_header":    {"scheme": "hmac-sha256", "header": "X-Sig", "event_id_header": "Connection"},
		"signing.event_type_header":  {"scheme": "hmac-sha256", "header": "X-Sig", "event_type_header": 42},
		"signing.separator":          {"scheme": "hmac-sha256", "header": "X-Sig", "separator": ";"},
		"signing.prefix ":            {"scheme": "standard-webhooks", "prefix": "v1,"},
	} {
		var out apiError
		code := api.do("POST", "/v1/endpoints", map[string]any{"url": rc.URL, "signing": signing}, &out)
		require.Equal(t, http.StatusBadRequest, code, "%v", signing)
		require.Equal(t, strings.TrimSpace(field), out.Error.Field, "%v", signing)
	}
	var out apiError
	require.Equal(t, http.StatusBadRequest, api.do("POST", "/v1/endpoints", map[string]any{"url": rc.URL,
		"signing": mailFrameSigning, "headers": map[string]string{"X-MailFrame-Attempt": "7"}}, &out))
	require.Equal(t, "signing.attempt_header", out.Error.Field)

	var plain endpoint
	require.Equal(t, http.StatusCreated, api.do("POST", "/v1/endpoints", map[string]any{"url": rc.URL, "event_types": []string{"signing.validation"}}, &plain))
	require.Equal(t, wire.SigningProfile{Scheme: "standard-webhooks"}, plain.Signing, "Standard Webhooks by default")
}
