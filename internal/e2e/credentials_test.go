package e2e

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/app"
)

// guarded is a loopback receiver that records every request and answers
// 200 when ok accepts it, refused otherwise.
func guarded(t *testing.T, refused int, ok func(r *http.Request) bool) *receiver {
	rc := &receiver{}
	rc.Server = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.hits = append(rc.hits, hit{At: time.Now(), Header: r.Header.Clone(), Body: body})
		rc.mu.Unlock()
		if !ok(r) {
			w.WriteHeader(refused)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	return rc
}

// endpointCreds reads an endpoint for its credentials, as the API
// shows them (masked).
func (c *apiClient) endpointCreds(id string) endpoint {
	c.t.Helper()
	var ep endpoint
	require.Equal(c.t, http.StatusOK, c.do("GET", "/v1/endpoints/"+id, nil, &ep))
	return ep
}

// createWithCreds creates an endpoint with credentials (201).
func (c *apiClient) createWithCreds(body map[string]any) endpoint {
	c.t.Helper()
	var ep endpoint
	require.Equal(c.t, http.StatusCreated, c.do("POST", "/v1/endpoints", body, &ep))
	return ep
}

var fastRetries = []string{"1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s"}

// A receiver that requires an X-Api-Key gets it; the endpoint shows it
// only masked; a key changed while a delivery waits to retry is what the
// retry sends.
func TestCustomHeaderAppliesToPendingRetry(t *testing.T) {
	api := newAPI(t)
	oldKey, newKey := marker("old-api-key"), marker("new-api-key")
	rc := guarded(t, http.StatusServiceUnavailable, func(r *http.Request) bool { return r.Header.Get("X-Api-Key") == newKey })
	ep := api.createWithCreds(map[string]any{"url": rc.URL, "event_types": []string{"creds.header"}, "retry_schedule": fastRetries,
		"headers": map[string]string{"x-api-key": oldKey, "X-Team": "payments"}})
	require.NotEmpty(t, ep.Secret)
	require.Equal(t, wire.EndpointHeaders{"X-Api-Key": "****" + oldKey[len(oldKey)-4:], "X-Team": "****ents"}, ep.Headers,
		"the answer to create shows the values masked")
	require.Equal(t, ep.Headers, api.endpointCreds(ep.ID).Headers)

	id := api.send(`{"type":"creds.header","payload":{"n":1}}`).Deliveries[0].ID
	require.Eventually(t, func() bool { return len(rc.Hits()) >= 1 }, 10*time.Second, 20*time.Millisecond)
	first := rc.Hits()[0]
	require.Equal(t, oldKey, first.Header.Get("X-Api-Key"), "the old key reached the receiver, which refused it")
	require.Equal(t, "payments", first.Header.Get("X-Team"))
	require.Equal(t, id, verify(t, first, ep.Secret), "signed as always")

	// Sending back the masked X-Team keeps it; the key changes.
	masked := api.endpointCreds(ep.ID).Headers["X-Team"]
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID,
		map[string]any{"headers": map[string]string{"X-Api-Key": newKey, "X-Team": masked}}, nil))
	d := api.waitDelivery(id, 20*time.Second)
	require.EqualValues(t, "delivered", d.Status)
	last := rc.Hits()[len(rc.Hits())-1]
	require.Equal(t, newKey, last.Header.Get("X-Api-Key"), "the retry of the pending delivery sent the new key")
	require.Equal(t, "payments", last.Header.Get("X-Team"), "a masked value sent back kept its value")
	require.GreaterOrEqual(t, d.Attempts, 2)

	// {} removes them.
	var cleared endpoint
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"headers": map[string]string{}}, &cleared))
	require.Empty(t, cleared.Headers)
}

// A receiver that requires HTTP Basic, and one that requires a bearer
// token, get them; "auth": null removes the auth.
func TestReceiverAuth(t *testing.T) {
	api := newAPI(t)
	t.Run("basic", func(t *testing.T) {
		password := marker("basic-password")
		rc := guarded(t, http.StatusUnauthorized, func(r *http.Request) bool {
			u, p, ok := r.BasicAuth()
			return ok && u == "alice" && p == password
		})
		ep := api.createWithCreds(map[string]any{"url": rc.URL, "event_types": []string{"creds.basic"},
			"auth": map[string]string{"type": "basic", "username": "alice", "password": password}})
		require.Equal(t, wire.EndpointAuth{Type: "basic", Username: "alice", Password: "****" + password[len(password)-4:]}, ep.Auth)
		id := api.send(`{"type":"creds.basic","payload":{"n":1}}`).Deliveries[0].ID
		require.EqualValues(t, "delivered", api.waitDelivery(id, 10*time.Second).Status)
	})
	t.Run("bearer", func(t *testing.T) {
		token := marker("bearer-token")
		rc := guarded(t, http.StatusUnauthorized, func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+token })
		ep := api.createWithCreds(map[string]any{"url": rc.URL, "event_types": []string{"creds.bearer"},
			"auth": map[string]string{"type": "bearer", "token": token}})
		require.Equal(t, wire.EndpointAuth{Type: "bearer", Token: "****" + token[len(token)-4:]}, api.endpointCreds(ep.ID).Auth)
		id := api.send(`{"type":"creds.bearer","payload":{"n":1}}`).Deliveries[0].ID
		require.EqualValues(t, "delivered", api.waitDelivery(id, 10*time.Second).Status)

		// The masked token sent back keeps it.
		require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID,
			map[string]any{"auth": api.endpointCreds(ep.ID).Auth}, nil))
		id = api.send(`{"type":"creds.bearer","payload":{"n":2}}`).Deliveries[0].ID
		require.EqualValues(t, "delivered", api.waitDelivery(id, 10*time.Second).Status)

		var removed endpoint
		require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, `{"auth":null}`, &removed))
		require.Zero(t, removed.Auth)
		id = api.send(`{"type":"creds.bearer","payload":{"n":3}}`).Deliveries[0].ID
		d := api.waitDelivery(id, 10*time.Second)
		require.EqualValues(t, "failed", d.Status, "without the token the receiver refuses")
		require.Equal(t, 401, d.LastStatus)
	})
}

// Every bad header or auth is refused with the field named, and changes
// nothing.
func TestCredentialsValidation(t *testing.T) {
	api := newAPI(t)
	rc := newReceiver(t, nil)
	base := func(extra map[string]any) map[string]any {
		// Never a catch-all: it would get every other test's events.
		b := map[string]any{"url": rc.URL, "event_types": []string{"creds.validation"}}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	many := map[string]string{}
	for i := range 21 {
		many[fmt.Sprintf("X-H%d", i)] = "v"
	}
	bearer := map[string]string{"type": "bearer", "token": "t0k3n-value"}
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"too many headers", base(map[string]any{"headers": many}), "headers"},
		{"headers not an object", base(map[string]any{"headers": []string{"x"}}), "headers"},
		{"name not a token", base(map[string]any{"headers": map[string]string{"X Api": "v"}}), "headers.X Api"},
		{"webhook-*", base(map[string]any{"headers": map[string]string{"Webhook-Signature": "v"}}), "headers.Webhook-Signature"},
		{"hookd-*", base(map[string]any{"headers": map[string]string{"hookd-attempt": "v"}}), "headers.hookd-attempt"},
		{"content-type", base(map[string]any{"headers": map[string]string{"Content-Type": "text/plain"}}), "headers.Content-Type"},
		{"content-length", base(map[string]any{"headers": map[string]string{"Content-Length": "1"}}), "headers.Content-Length"},
		{"host", base(map[string]any{"headers": map[string]string{"Host": "evil"}}), "headers.Host"},
		{"transfer-encoding", base(map[string]any{"headers": map[string]string{"Transfer-Encoding": "chunked"}}), "headers.Transfer-Encoding"},
		{"connection", base(map[string]any{"headers": map[string]string{"Connection": "close"}}), "headers.Connection"},
		{"authorization with auth", base(map[string]any{"headers": map[string]string{"Authorization": "x"}, "auth": bearer}), "headers.Authorization"},
		{"duplicate", base(map[string]any{"headers": map[string]string{"X-A": "1", "x-a": "2"}}), "headers.x-a"},
		{"CR LF", base(map[string]any{"headers": map[string]string{"X-A": "v\r\nX-Injected: 1"}}), "headers.X-A"},
		{"empty value", base(map[string]any{"headers": map[string]string{"X-A": ""}}), "headers.X-A"},
		{"value too long", base(map[string]any{"headers": map[string]string{"X-A": strings.Repeat("v", 4097)}}), "headers.X-A"},
		{"value not a string", base(map[string]any{"headers": map[string]any{"X-A": 1}}), "headers"},
		{"auth not an object", base(map[string]any{"auth": "bearer"}), "auth"},
		{"auth without type", base(map[string]any{"auth": map[string]string{"token": "x"}}), "auth.type"},
		{"auth unknown type", base(map[string]any{"auth": map[string]string{"type": "digest"}}), "auth.type"},
		{"auth unknown field", base(map[string]any{"auth": map[string]string{"type": "bearer", "token": "x", "extra": "y"}}), "auth.extra"},
		{"bearer without token", base(map[string]any{"auth": map[string]string{"type": "bearer"}}), "auth.token"},
		{"bearer token with LF", base(map[string]any{"auth": map[string]string{"type": "bearer", "token": "a\nb"}}), "auth.token"},
		{"bearer with password", base(map[string]any{"auth": map[string]string{"type": "bearer", "token": "x", "password": "y"}}), "auth.password"},
		{"basic without username", base(map[string]any{"auth": map[string]string{"type": "basic", "password": "p"}}), "auth.username"},
		{"basic username with colon", base(map[string]any{"auth": map[string]string{"type": "basic", "username": "a:b", "password": "p"}}), "auth.username"},
		{"basic without password", base(map[string]any{"auth": map[string]string{"type": "basic", "username": "a"}}), "auth.password"},
		{"oauth2 without token_url", base(map[string]any{"auth": map[string]string{"type": "oauth2_client_credentials", "client_id": "c", "client_secret": "s"}}), "auth.token_url"},
		{"oauth2 bad token_url", base(map[string]any{"auth": map[string]string{"type": "oauth2_client_credentials", "token_url": "ftp://x", "client_id": "c", "client_secret": "s"}}), "auth.token_url"},
		{"oauth2 without client_id", base(map[string]any{"auth": map[string]string{"type": "oauth2_client_credentials", "token_url": rc.URL, "client_secret": "s"}}), "auth.client_id"},
		{"oauth2 without client_secret", base(map[string]any{"auth": map[string]string{"type": "oauth2_client_credentials", "token_url": rc.URL, "client_id": "c"}}), "auth.client_secret"},
	}
	for _, c := range cases {
		var e apiError
		require.Equal(t, http.StatusBadRequest, api.do("POST", "/v1/endpoints", c.body, &e), c.name)
		require.EqualValues(t, "invalid", e.Error.Code, c.name)
		require.Equal(t, c.field, e.Error.Field, "%s: %s", c.name, e.Error.Message)
		require.NotContains(t, e.Error.Message, "X-Injected", "a value is never repeated")
	}
	// A PATCH adding Authorization beside an existing auth names it too.
	ep := api.createWithCreds(base(map[string]any{"auth": bearer}))
	var e apiError
	require.Equal(t, http.StatusBadRequest, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"headers": map[string]string{"authorization": "x"}}, &e))
	require.Equal(t, "headers.Authorization", e.Error.Field)
	require.Equal(t, "****alue", api.endpointCreds(ep.ID).Auth.Token, "a refused change changes nothing")
}

// TestCredentialsNeverReachTemporalOrLogs runs hookd dev on its own data
// dir with every log line kept: each credential's marker (a custom
// header, a bearer token, a basic password, an OAuth 2.0 client secret
// and the token it gets, a client certificate's private key) reaches its
// receiver, through failed attempts and changes too, and is nowhere in
// Temporal's files, the endpoint store's, nor the logs.
func TestCredentialsNeverReachTemporalOrLogs(t *testing.T) {
	sd := startScanned(t, func(*app.DevConfig) {}, app.Tuning{})
	dir, logs := sd.dir, sd.logs
	api := &apiClient{t: t, dev: sd.Dev}

	header, token, password := marker("header-marker"), marker("token-marker"), marker("password-marker")
	clientSecret, accessToken := marker("client-secret-marker"), marker("access-token-marker")
	mtls := newTLSReceiver(t)
	clientCert := mtls.ClientCA.IssueNow(t, "scan-client")
	markers := map[string]string{"header": header, "bearer token": token, "basic password": password,
		"client secret": clientSecret, "access token": accessToken,
		"client key": strings.Split(clientCert.KeyPEM, "\n")[1]}

	// Each receiver refuses its first request (retryable), then wants
	// its credential.
	var calls atomic.Int32
	refuseFirst := func(ok func(r *http.Request) bool) func(r *http.Request) bool {
		var n atomic.Int32
		return func(r *http.Request) bool { calls.Add(1); return n.Add(1) > 1 && ok(r) }
	}
	withHeader := guarded(t, 503, refuseFirst(func(r *http.Request) bool {
		return r.Header.Get("X-Api-Key") == header && r.Header.Get("Authorization") == "Bearer "+token
	}))
	withBasic := guarded(t, 503, refuseFirst(func(r *http.Request) bool {
		u, p, ok := r.BasicAuth()
		return ok && u == "bob" && p == password
	}))
	withOAuth := guarded(t, 503, refuseFirst(func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+accessToken }))
	tokens := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, _ := r.BasicAuth()
		if id != "client-1" || secret != clientSecret {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"bearer","expires_in":3600}`, accessToken)
	}))

	eps := []endpoint{
		api.createWithCreds(map[string]any{"url": withHeader.URL, "event_types": []string{"scan.checked"}, "retry_schedule": fastRetries,
			"headers": map[string]string{"X-Api-Key": header}, "auth": map[string]string{"type": "bearer", "token": token}}),
		api.createWithCreds(map[string]any{"url": withBasic.URL, "event_types": []string{"scan.checked"}, "retry_schedule": fastRetries,
			"auth": map[string]string{"type": "basic", "username": "bob", "password": password}}),
		api.createWithCreds(map[string]any{"url": withOAuth.URL, "event_types": []string{"scan.checked"}, "retry_schedule": fastRetries,
			"auth": map[string]string{"type": "oauth2_client_credentials", "token_url": tokens.URL, "client_id": "client-1", "client_secret": clientSecret}}),
		api.createWithCreds(map[string]any{"url": mtls.URL, "event_types": []string{"scan.checked"}, "retry_schedule": fastRetries,
			"tls": map[string]string{"client_certificate": clientCert.CertPEM, "client_key": clientCert.KeyPEM, "ca": mtls.ServerCA.PEM}}),
	}
	// A bad input echoing a credential is refused without repeating it.
	var refused apiError
	require.Equal(t, http.StatusBadRequest, api.do("PATCH", "/v1/endpoints/"+eps[0].ID,
		map[string]any{"headers": map[string]string{"Host": header}}, &refused))

	sent := api.send(`{"type":"scan.checked","payload":{"n":1}}`)
	require.Len(t, sent.Deliveries, 4)
	for _, d := range sent.Deliveries {
		st := api.waitDelivery(d.ID, 30*time.Second)
		require.EqualValues(t, "delivered", st.Status, "%s: %+v", d.EndpointID, st.Timeline)
		if d.EndpointID != eps[3].ID { // the TLS receiver takes the first
			require.GreaterOrEqual(t, st.Attempts, 2)
		}
	}
	// The answers are searched as raw JSON objects, not wire types: a
	// marker in a field the wire types lack must show too.
	for _, ep := range eps {
		var raw map[string]any
		require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+ep.ID, nil, &raw))
		for what, m := range markers {
			require.NotContains(t, fmt.Sprint(raw), m, "GET shows the %s", what)
		}
	}
	var list map[string]any
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints", nil, &list))
	for what, m := range markers {
		require.NotContains(t, fmt.Sprint(list), m, "the list shows the %s", what)
	}

	sd.stop()
	require.NotEmpty(t, logs.String(), "the logs were captured")
	for what, m := range markers {
		require.Empty(t, foundIn(t, dir, m), "the %s is in the data dir's files", what)
		require.NotContains(t, logs.String(), m, "the %s is in the logs", what)
	}
	// Control: the scan sees what is there (the endpoint IDs).
	require.NotEmpty(t, foundIn(t, dir, eps[0].ID))
	require.Contains(t, logs.String(), "endpoint created")
	require.Equal(t, []string{"scan-client"}, mtls.seen(), "the client certificate reached its receiver")
	require.Equal(t, "Basic "+base64.StdEncoding.EncodeToString([]byte("bob:"+password)), withBasic.Hits()[0].Header.Get("Authorization"))
}
