package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/testkit"
)

// tlsReceiver is a testkit.MutualTLS answering 200 that records the
// subject of each client certificate it accepted.
type tlsReceiver struct {
	*testkit.MutualTLS
	mu       sync.Mutex
	subjects []string
}

func newTLSReceiver(t *testing.T) *tlsReceiver {
	rc := &tlsReceiver{}
	rc.MutualTLS = testkit.NewMutualTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rc.mu.Lock()
		rc.subjects = append(rc.subjects, r.TLS.PeerCertificates[0].Subject.CommonName)
		rc.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	return rc
}

func (rc *tlsReceiver) seen() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.subjects...)
}

// firstFailure waits for the delivery's first attempt and returns its
// error class and message.
func (c *apiClient) firstFailure(id string) (string, string) {
	c.t.Helper()
	var d deliveryState
	require.Eventually(c.t, func() bool {
		return c.do("GET", "/v1/deliveries/"+id, nil, &d) == http.StatusOK && len(d.Timeline) > 0
	}, 15*time.Second, 50*time.Millisecond)
	return d.Timeline[0].ErrorClass, d.Timeline[0].Error
}

// A receiver that requires a client certificate from a CA of its own,
// behind a certificate of a private CA: with the endpoint's tls the
// delivery succeeds; without the certificate, or with an expired one,
// each attempt fails with an error that says why; the key is never shown.
func TestMutualTLS(t *testing.T) {
	api := newAPI(t)
	rc := newTLSReceiver(t)
	notAfter := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second)
	client := rc.ClientCA.Issue(t, "hookd-client", time.Now().Add(-time.Hour), notAfter)
	keyLine := strings.Split(client.KeyPEM, "\n")[1]
	create := func(eventType string, tl map[string]string) string {
		t.Helper()
		var ep endpoint
		body := map[string]any{"url": rc.URL, "event_types": []string{eventType}, "retry_schedule": []string{"1s"}}
		if tl != nil {
			body["tls"] = tl
		}
		require.Equal(t, http.StatusCreated, api.do("POST", "/v1/endpoints", body, &ep))
		return ep.ID
	}
	sendOne := func(eventType string) string {
		t.Helper()
		return api.send(`{"type":"` + eventType + `","payload":{"n":1}}`).Deliveries[0].ID
	}

	id := create("mtls.ok", map[string]string{"client_certificate": client.CertPEM, "client_key": client.KeyPEM, "ca": rc.ServerCA.PEM})
	require.EqualValues(t, "delivered", api.waitDelivery(sendOne("mtls.ok"), 15*time.Second).Status)
	require.Equal(t, []string{"hookd-client"}, rc.seen(), "the receiver accepted hookd's client certificate")

	// The raw answer, not the wire type, is searched for the key: a field
	// the wire type lacks would not show it.
	var raw json.RawMessage
	var shown endpoint
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+id, nil, &shown))
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+id, nil, &raw))
	require.NotContains(t, string(raw), keyLine, "the key is never shown")
	require.Equal(t, "CN=hookd-client", shown.TLS.Subject)
	require.Equal(t, "CN=Client CA", shown.TLS.Issuer)
	require.True(t, notAfter.Equal(shown.TLS.NotAfter), "not_after %s", shown.TLS.NotAfter)
	require.Equal(t, []string{"CN=Receiver CA"}, shown.TLS.CASubjects)
	require.Regexp(t, `^\*\*\*\*[0-9a-f]{4}$`, shown.TLS.ClientKey)

	// What GET showed, sent back, keeps the key.
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+id, map[string]any{"tls": map[string]string{
		"client_certificate": shown.TLS.ClientCertificate, "client_key": shown.TLS.ClientKey, "ca": shown.TLS.CA}}, nil))
	require.EqualValues(t, "delivered", api.waitDelivery(sendOne("mtls.ok"), 15*time.Second).Status)

	// The private CA alone: the receiver asks for a certificate hookd does
	// not have.
	create("mtls.nocert", map[string]string{"ca": rc.ServerCA.PEM})
	class, msg := api.firstFailure(sendOne("mtls.nocert"))
	require.Equal(t, "tls", class, msg)
	require.Contains(t, msg, "certificate required")

	// No tls at all: hookd does not trust the receiver's private CA.
	create("mtls.none", nil)
	class, msg = api.firstFailure(sendOne("mtls.none"))
	require.Equal(t, "tls", class, msg)
	require.Contains(t, msg, "authority hookd does not trust")

	// An expired certificate is stored, shown with its expiry, and refused
	// by every attempt before a request.
	expired := rc.ClientCA.Issue(t, "hookd-expired", time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour))
	create("mtls.expired", map[string]string{"client_certificate": expired.CertPEM, "client_key": expired.KeyPEM, "ca": rc.ServerCA.PEM})
	d := sendOne("mtls.expired")
	class, msg = api.firstFailure(d)
	require.Equal(t, "tls_certificate", class, msg)
	require.Contains(t, msg, "the client certificate expired at ")
	require.NotContains(t, msg, "BEGIN")
	require.Len(t, rc.seen(), 2, "only the two deliveries with a valid certificate reached the receiver")

	// null removes it: the next delivery fails.
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+id, `{"tls":null}`, &shown))
	class, _ = api.firstFailure(sendOne("mtls.ok"))
	require.Equal(t, "tls", class)
}

// A bad tls is a 400 naming its field.
func TestMutualTLSValidation(t *testing.T) {
	api := newAPI(t)
	ca := testkit.NewCA(t, "CA")
	client, other := ca.IssueNow(t, "client"), ca.IssueNow(t, "other")
	for name, c := range map[string]struct {
		tls   any
		field string
	}{
		"mismatched key":    {map[string]string{"client_certificate": client.CertPEM, "client_key": other.KeyPEM}, "tls.client_key"},
		"bad certificate":   {map[string]string{"client_certificate": "not PEM", "client_key": client.KeyPEM}, "tls.client_certificate"},
		"bad key":           {map[string]string{"client_certificate": client.CertPEM, "client_key": "not PEM"}, "tls.client_key"},
		"bad CA":            {map[string]string{"ca": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"}, "tls.ca"},
		"certificate alone": {map[string]string{"client_certificate": client.CertPEM}, "tls.client_key"},
		"unknown member":    {map[string]string{"ca": ca.PEM, "cert": client.CertPEM}, "tls.cert"},
	} {
		var e apiError
		body := map[string]any{"url": "https://example.com/hook", "event_types": []string{"mtls.validation"}, "tls": c.tls}
		require.Equal(t, http.StatusBadRequest, api.do("POST", "/v1/endpoints", body, &e), name)
		require.EqualValues(t, "invalid", e.Error.Code, name)
		require.Equal(t, c.field, e.Error.Field, "%s: %s", name, e.Error.Message)
		require.NotContains(t, e.Error.Message, strings.Split(other.KeyPEM, "\n")[1], name)
	}
}
