package api

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/testkit"
)

// A patch's tls: set, shown without the key, kept by its marker,
// replaced, removed; every refusal names its field and changes nothing.
func TestPatchTLS(t *testing.T) {
	s := &Server{}
	ca := testkit.NewCA(t, "Receiver CA")
	client := ca.Issue(t, "hookd-client", time.Now().Add(-time.Hour), time.Date(2031, 5, 1, 0, 0, 0, 0, time.UTC))
	other := ca.IssueNow(t, "other")
	patch := func(v any) wire.EndpointPatch {
		t.Helper()
		body, err := json.Marshal(map[string]any{"tls": v})
		require.NoError(t, err)
		var p wire.EndpointPatch
		require.NoError(t, decodeEndpointBody(body, &p))
		return p
	}
	ep := &store.Endpoint{}
	require.NoError(t, s.apply(patch(map[string]string{"client_certificate": client.CertPEM, "client_key": client.KeyPEM, "ca": ca.PEM}), ep))
	view := toJSON(ep).TLS
	require.NotEmpty(t, view.ClientCertificate)
	require.Equal(t, client.CertPEM, view.ClientCertificate)
	require.Equal(t, ca.PEM, view.CA)
	require.Regexp(t, `^\*\*\*\*[0-9a-f]{4}$`, view.ClientKey)
	require.Equal(t, "CN=hookd-client", view.Subject)
	require.Equal(t, "CN=Receiver CA", view.Issuer)
	require.Equal(t, time.Date(2031, 5, 1, 0, 0, 0, 0, time.UTC), view.NotAfter)
	require.Equal(t, []string{"CN=Receiver CA"}, view.CASubjects)
	shown, err := json.Marshal(toJSON(ep))
	require.NoError(t, err)
	require.NotContains(t, string(shown), strings.Split(client.KeyPEM, "\n")[1], "the key is never shown")

	// The view sent back keeps the key; a new certificate with the old
	// key's marker does not match it.
	require.NoError(t, s.apply(patch(map[string]string{"client_certificate": view.ClientCertificate, "client_key": view.ClientKey, "ca": view.CA}), ep))
	require.Equal(t, client.KeyPEM, ep.Credentials.TLS.ClientKey)
	err = s.apply(patch(map[string]string{"client_certificate": other.CertPEM, "client_key": view.ClientKey}), ep)
	requireField(t, err, "tls.client_key")
	require.Equal(t, client.KeyPEM, ep.Credentials.TLS.ClientKey, "a refused change changes nothing")

	// A CA alone; null removes it all.
	require.NoError(t, s.apply(patch(map[string]string{"ca": ca.PEM}), ep))
	require.Equal(t, &store.TLS{CA: ca.PEM}, ep.Credentials.TLS)
	require.Empty(t, toJSON(ep).TLS.ClientKey)
	require.NoError(t, s.apply(patch(nil), ep))
	require.Nil(t, ep.Credentials.TLS)
	require.Zero(t, toJSON(ep).TLS)
	require.True(t, ep.Credentials.Empty())

	for name, c := range map[string]struct {
		tls   any
		field string
	}{
		"not an object":         {"pem", "tls"},
		"unknown member":        {map[string]string{"ca": ca.PEM, "key": "x"}, "tls.key"},
		"member not a string":   {map[string]any{"ca": 1}, "tls.ca"},
		"empty":                 {map[string]string{}, "tls"},
		"certificate alone":     {map[string]string{"client_certificate": client.CertPEM}, "tls.client_key"},
		"key alone":             {map[string]string{"client_key": client.KeyPEM}, "tls.client_certificate"},
		"bad certificate":       {map[string]string{"client_certificate": "x", "client_key": client.KeyPEM}, "tls.client_certificate"},
		"bad key":               {map[string]string{"client_certificate": client.CertPEM, "client_key": "x"}, "tls.client_key"},
		"mismatched key":        {map[string]string{"client_certificate": client.CertPEM, "client_key": other.KeyPEM}, "tls.client_key"},
		"bad CA":                {map[string]string{"ca": "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n"}, "tls.ca"},
		"certificate too large": {map[string]string{"client_certificate": strings.Repeat("x", 16<<10+1), "client_key": client.KeyPEM}, "tls.client_certificate"},
		"CA too large":          {map[string]string{"ca": strings.Repeat("x", 32<<10+1)}, "tls.ca"},
	} {
		body, err := json.Marshal(map[string]any{"tls": c.tls})
		require.NoError(t, err)
		var p wire.EndpointPatch
		err = decodeEndpointBody(body, &p)
		if err == nil {
			err = s.apply(p, &store.Endpoint{})
		}
		requireField(t, err, c.field, name)
		require.NotContains(t, err.Error(), strings.Split(other.KeyPEM, "\n")[1], name)
	}
}

func requireField(t *testing.T, err error, field string, msg ...any) {
	t.Helper()
	var e *Error
	require.ErrorAs(t, err, &e, msg...)
	require.Equal(t, CodeInvalid, e.Code, msg...)
	require.Equal(t, field, e.Field, append(msg, e.Message)...)
}
