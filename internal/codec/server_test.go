package codec_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/hookd/hookd/internal/codec"
)

const uiOrigin = "http://127.0.0.1:8233"

// bearer is a stand-in for the API's key check.
func bearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func newServer(t *testing.T, keys ...[]byte) *httptest.Server {
	h, err := codec.NewHandler(codec.HandlerOptions{
		Keys: keys, Encrypt: true, Namespace: "default",
		AllowOrigins: []string{uiOrigin}, Authorize: bearer,
	})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// post sends payloads to the codec server the way the Web UI does.
func post(t *testing.T, url string, header http.Header, payloads ...*commonpb.Payload) (int, []*commonpb.Payload, string) {
	t.Helper()
	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: payloads})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil, string(raw)
	}
	var out commonpb.Payloads
	require.NoError(t, protojson.Unmarshal(raw, &out), "body: %s", raw)
	return resp.StatusCode, out.Payloads, resp.Header.Get("Access-Control-Allow-Origin")
}

func TestCodecServerRoundTrip(t *testing.T) {
	k := newKey(t)
	srv := newServer(t, k)
	auth := http.Header{"Authorization": {"Bearer k"}, "X-Namespace": {"default"}, "Origin": {uiOrigin}}
	plain, err := converter.GetDefaultDataConverter().ToPayload(map[string]string{"email": "ada@example.com"})
	require.NoError(t, err)

	code, enc, allow := post(t, srv.URL+"/codec/encode", auth, plain)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, uiOrigin, allow, "CORS allows the UI's origin")
	require.Len(t, enc, 1)
	require.Equal(t, codec.EncodingEncrypted, string(enc[0].Metadata["encoding"]))
	require.NotContains(t, string(enc[0].Data), "ada@example.com")

	// What the workers wrote decodes too: the server and the processes
	// share the key and namespace.
	written, err := newCodec(t, "default", true, k).DataConverter().ToPayload("from a worker")
	require.NoError(t, err)
	code, dec, _ := post(t, srv.URL+"/codec/decode", auth, enc[0], written, plain)
	require.Equal(t, http.StatusOK, code)
	require.Len(t, dec, 3)
	var got map[string]string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(dec[0], &got))
	require.Equal(t, "ada@example.com", got["email"])
	var s string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(dec[1], &s))
	require.Equal(t, "from a worker", s)
	require.Equal(t, "json/plain", string(dec[2].Metadata["encoding"]), "plaintext passes through")
}

func TestCodecServerUsesTheRequestsNamespace(t *testing.T) {
	k := newKey(t)
	srv := newServer(t, k)
	other, err := newCodec(t, "other", true, k).DataConverter().ToPayload("in another namespace")
	require.NoError(t, err)

	code, _, body := post(t, srv.URL+"/codec/decode", http.Header{"Authorization": {"Bearer k"}}, other)
	require.Equal(t, http.StatusBadRequest, code, "the default namespace's key does not open it")
	require.Contains(t, body, "authentication failed")

	code, dec, _ := post(t, srv.URL+"/codec/decode", http.Header{"Authorization": {"Bearer k"}, "X-Namespace": {"other"}}, other)
	require.Equal(t, http.StatusOK, code)
	var s string
	require.NoError(t, converter.GetDefaultDataConverter().FromPayload(dec[0], &s))
	require.Equal(t, "in another namespace", s)
}

func TestCodecServerUnknownKey(t *testing.T) {
	srv := newServer(t, newKey(t))
	p, err := newCodec(t, "default", true, newKey(t)).DataConverter().ToPayload("x")
	require.NoError(t, err)
	code, _, body := post(t, srv.URL+"/codec/decode", http.Header{"Authorization": {"Bearer k"}}, p)
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, body, "not among the configured payload keys")
}

func TestCodecServerRequiresCredentials(t *testing.T) {
	srv := newServer(t, newKey(t))
	for _, h := range []http.Header{{}, {"Authorization": {"Bearer wrong"}}, {"Origin": {uiOrigin}}} {
		code, _, _ := post(t, srv.URL+"/codec/decode", h)
		require.Equal(t, http.StatusUnauthorized, code, "headers %v", h)
		code, _, _ = post(t, srv.URL+"/codec/encode", h)
		require.Equal(t, http.StatusUnauthorized, code, "headers %v", h)
	}
}

func preflight(t *testing.T, url, origin string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodOptions, url, nil)
	require.NoError(t, err)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,x-namespace")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp
}

func TestCodecServerPreflight(t *testing.T) {
	srv := newServer(t, newKey(t))
	resp := preflight(t, srv.URL+"/codec/decode", uiOrigin)
	require.Equal(t, http.StatusNoContent, resp.StatusCode, "no credentials needed for a preflight")
	require.Equal(t, uiOrigin, resp.Header.Get("Access-Control-Allow-Origin"))
	require.Contains(t, resp.Header.Get("Access-Control-Allow-Methods"), "POST")
	allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
	for _, h := range []string{"authorization", "content-type", "x-namespace"} {
		require.Contains(t, allowed, h)
	}

	resp = preflight(t, srv.URL+"/codec/decode", "https://evil.example")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
}

func TestCodecServerRoutes(t *testing.T) {
	srv := newServer(t, newKey(t))
	resp, err := http.Get(srv.URL + "/codec/decode")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	resp, err = http.Post(srv.URL+"/codec/download", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	raw, _ := json.Marshal(map[string]any{"payloads": "nope"})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/codec/decode", bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer k")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

// Every codec answer (decoded payloads, a refusal, a preflight) carries
// nosniff and no-store: decoded payloads must not sit in a cache.
func TestCodecServerResponseHeaders(t *testing.T) {
	srv := newServer(t, newKey(t))
	check := func(resp *http.Response, what string) {
		t.Helper()
		require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), what)
		require.Equal(t, "no-store", resp.Header.Get("Cache-Control"), what)
	}
	for name, cred := range map[string]string{"decoded": "Bearer k", "refused": ""} {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/codec/decode", strings.NewReader(`{"payloads":[]}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if cred != "" {
			req.Header.Set("Authorization", cred)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		check(resp, name)
	}
	check(preflight(t, srv.URL+"/codec/decode", uiOrigin), "preflight")
}
