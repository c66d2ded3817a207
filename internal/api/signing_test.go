package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/signing"
)

const mailFrameJSON = `{"scheme": "hmac-sha256", "header": "MailFrame-Signature", "prefix": "sha256=",
	"delivery_id_header": "X-MailFrame-Delivery-Id", "event_id_header": "X-MailFrame-Event-Id", "attempt_header": "X-MailFrame-Attempt"}`

func patchJSON(t *testing.T, s *Server, id, body string) (int, map[string]any) {
	t.Helper()
	return callJSON(t, s, context.Background(), http.MethodPatch, "/v1/endpoints/"+id, body)
}

func errorField(out map[string]any) any {
	e, _ := out["error"].(map[string]any)
	return e["field"]
}

// A profile is shown whole, defaults filled in; an endpoint without one
// shows Standard Webhooks.
func TestEndpointSigningProfile(t *testing.T) {
	s := newTestServer(t, &fakeTemporal{})
	code, out := post(t, s, context.Background(), "/v1/endpoints", `{"url": "https://example.com/a", "signing": `+mailFrameJSON+`}`)
	require.Equal(t, http.StatusCreated, code, out)
	assert.Equal(t, map[string]any{"scheme": "hmac-sha256", "header": "MailFrame-Signature", "prefix": "sha256=", "encoding": "hex",
		"content": "body", "timestamp_header": "webhook-timestamp", "delivery_id_header": "X-MailFrame-Delivery-Id",
		"event_id_header": "X-MailFrame-Event-Id", "event_type_header": "hookd-event-type", "attempt_header": "X-MailFrame-Attempt"}, out["signing"])
	stored := s.store.(*fakeStore).endpoints[out["id"].(string)]
	assert.Equal(t, "X-MailFrame-Attempt", stored.Signing.AttemptHeader)

	code, out = post(t, s, context.Background(), "/v1/endpoints", `{"url": "https://example.com/b"}`)
	require.Equal(t, http.StatusCreated, code, out)
	assert.Equal(t, map[string]any{"scheme": "standard-webhooks"}, out["signing"])
	assert.Equal(t, signing.Profile{}, s.store.(*fakeStore).endpoints[out["id"].(string)].Signing, "stored as before profiles")

	code, out = patchJSON(t, s, "ep_on", `{"signing": {"scheme": "hmac-sha256", "header": "Postfleet-Signature", "content": "timestamp.body", "encoding": "base64"}}`)
	require.Equal(t, http.StatusOK, code, out)
	assert.Equal(t, "timestamp.body", out["signing"].(map[string]any)["content"])
	code, out = patchJSON(t, s, "ep_on", `{"signing": {"scheme": "standard-webhooks"}}`)
	require.Equal(t, http.StatusOK, code, out)
	assert.Equal(t, map[string]any{"scheme": "standard-webhooks"}, out["signing"])
}

// Every bad profile field is a 400 naming it.
func TestEndpointSigningNamesTheField(t *testing.T) {
	s := newTestServer(t, &fakeTemporal{})
	cases := map[string]string{
		`"signing": null`:                      "signing",
		`"signing": "hmac-sha256"`:             "signing",
		`"signing": {}`:                        "signing.scheme",
		`"signing": {"scheme": "md5"}`:         "signing.scheme",
		`"signing": {"scheme": "hmac-sha256"}`: "signing.header",
		`"signing": {"scheme": "hmac-sha256", "header": "X-Sig", "encoding": "base32"}`:                                   "signing.encoding",
		`"signing": {"scheme": "hmac-sha256", "header": "X-Sig", "content": "id.body"}`:                                   "signing.content",
		`"signing": {"scheme": "hmac-sha256", "header": "X-Sig", "prefix": "sha256 ="}`:                                   "signing.prefix",
		`"signing": {"scheme": "hmac-sha256", "header": "X Sig"}`:                                                         "signing.header",
		`"signing": {"scheme": "hmac-sha256", "header": "Content-Length"}`:                                                "signing.header",
		`"signing": {"scheme": "hmac-sha256", "header": "X-Sig", "timestamp_header": "Host"}`:                             "signing.timestamp_header",
		`"signing": {"scheme": "hmac-sha256", "header": "X-Sig", "attempt_header": "x-sig"}`:                              "signing.attempt_header",
		`"signing": {"scheme": "hmac-sha256", "header": "X-Sig", "event_id_header": 7}`:                                   "signing.event_id_header",
		`"signing": {"scheme": "hmac-sha256", "header": "X-Sig", "separator": ";"}`:                                       "signing.separator",
		`"signing": {"scheme": "standard-webhooks", "header": "X-Sig"}`:                                                   "signing.header",
		`"signing": {"scheme": "hmac-sha256", "header": "X-Sig"}, "headers": {"x-sig": "v"}`:                              "signing.header",
		`"signing": {"scheme": "hmac-sha256", "header": "X-Sig", "delivery_id_header": "X-Id"}, "headers": {"X-Id": "v"}`: "signing.delivery_id_header",
	}
	for body, field := range cases {
		code, out := post(t, s, context.Background(), "/v1/endpoints", `{"url": "https://example.com/a", `+body+`}`)
		assert.Equal(t, http.StatusBadRequest, code, body)
		assert.Equal(t, field, errorField(out), body)
	}
	code, out := patchJSON(t, s, "ep_on", `{"signing": {"scheme": "hmac-sha256", "header": "X-Sig"}}`)
	require.Equal(t, http.StatusOK, code, out)
	code, out = patchJSON(t, s, "ep_on", `{"headers": {"X-Sig": "v"}}`)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Equal(t, "headers.X-Sig", errorField(out), "a custom header the profile sets")
}

// The deployment's default profile is what an endpoint created without
// one gets; one given replaces it.
func TestDefaultSigning(t *testing.T) {
	st := &fakeStore{endpoints: map[string]*store.Endpoint{}}
	def := signing.Profile{Scheme: signing.SchemeHMACSHA256, Header: "Postfleet-Signature", Content: signing.ContentTimestampBody}
	s, err := New(Config{Temporal: &fakeTemporal{}, Store: st, APIKeys: []string{"k"}, Namespace: "default",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DefaultSigning: def})
	require.NoError(t, err)
	code, out := post(t, s, context.Background(), "/v1/endpoints", `{"url": "https://example.com/a"}`)
	require.Equal(t, http.StatusCreated, code, out)
	got := out["signing"].(map[string]any)
	assert.Equal(t, "Postfleet-Signature", got["header"])
	assert.Equal(t, "hex", got["encoding"], "normalized")
	code, out = post(t, s, context.Background(), "/v1/endpoints", `{"url": "https://example.com/a", "signing": {"scheme": "standard-webhooks"}}`)
	require.Equal(t, http.StatusCreated, code, out)
	assert.Equal(t, map[string]any{"scheme": "standard-webhooks"}, out["signing"])

	_, err = New(Config{Temporal: &fakeTemporal{}, Store: st, APIKeys: []string{"k"}, Namespace: "default",
		DefaultSigning: signing.Profile{Scheme: signing.SchemeHMACSHA256}})
	require.ErrorContains(t, err, "header")
}

func (f *fakeStore) CreateEndpointWithin(_ context.Context, ep *store.Endpoint, _ string, _ int, _ ...store.OpEvent) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	cp := *ep
	f.endpoints[ep.ID] = &cp
	return nil
}
