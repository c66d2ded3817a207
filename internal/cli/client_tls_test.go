package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pemFiles(t *testing.T, files map[string]string) map[string]string {
	dir := t.TempDir()
	paths := map[string]string{}
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		paths[name] = p
	}
	return paths
}

const tlsView = `,"tls":{"client_certificate":"CERT-PEM","client_key":"****3f9a","ca":"CA-PEM","subject":"CN=hookd-client",
"issuer":"CN=Client CA","not_after":"2027-05-01T00:00:00Z","ca_subjects":["CN=Receiver CA"]}}`

// --tls-cert, --tls-key and --tls-ca send the files' PEM; the answer
// shows the certificate and its expiry, never the key.
func TestEndpointsCreateWithTLS(t *testing.T) {
	files := pemFiles(t, map[string]string{"cert.pem": "CERT-PEM", "key.pem": "KEY-PEM-SECRET", "ca.pem": "CA-PEM"})
	f := newFakeAPI(t)
	f.on("POST /v1/endpoints", 201, endpointJSON+tlsView)
	out, _, err := cli("endpoints", "create", "--url", "https://example.com/hook",
		"--tls-cert", files["cert.pem"], "--tls-key", files["key.pem"], "--tls-ca", files["ca.pem"])
	require.NoError(t, err)
	assert.JSONEq(t, `{"url":"https://example.com/hook","tls":{"client_certificate":"CERT-PEM","client_key":"KEY-PEM-SECRET","ca":"CA-PEM"}}`, f.only(t).Body)
	assert.Regexp(t, `TLS client certificate\s+CN=hookd-client \(issuer CN=Client CA, key \*\*\*\*3f9a\)`, out)
	assert.Regexp(t, `TLS certificate expires\s+2027-05-01T00:00:00Z`, out)
	assert.Regexp(t, `TLS CA\s+CN=Receiver CA`, out)
}

// On update, a part not given keeps its current value (the key by its
// marker); --no-tls removes them all.
func TestEndpointsUpdateTLS(t *testing.T) {
	files := pemFiles(t, map[string]string{"ca.pem": "NEW-CA", "cert.pem": "NEW-CERT"})
	for _, c := range []struct {
		args []string
		body string
	}{
		{[]string{"--tls-ca", files["ca.pem"]}, `{"tls":{"client_certificate":"CERT-PEM","client_key":"****3f9a","ca":"NEW-CA"}}`},
		{[]string{"--tls-cert", files["cert.pem"]}, `{"tls":{"client_certificate":"NEW-CERT","client_key":"****3f9a","ca":"CA-PEM"}}`},
		{[]string{"--no-tls"}, `{"tls":null}`},
		{[]string{"--no-tls", "--no-auth"}, `{"tls":null,"auth":null}`},
	} {
		f := newFakeAPI(t)
		f.on("GET /v1/endpoints/{id}", 200, endpointJSON+tlsView)
		f.on("PATCH /v1/endpoints/{id}", 200, endpointJSON+"}")
		_, _, err := cli(append([]string{"endpoints", "update", "ep_1"}, c.args...)...)
		require.NoError(t, err, "%v", c.args)
		reqs := f.requests()
		assert.JSONEq(t, c.body, reqs[len(reqs)-1].Body, "%v", c.args)
	}
}

func TestEndpointsTLSFlagsRefused(t *testing.T) {
	files := pemFiles(t, map[string]string{"ca.pem": "CA"})
	for _, args := range [][]string{
		{"--tls-ca", files["ca.pem"], "--no-tls"},
		{"--tls-key", filepath.Join(t.TempDir(), "missing.pem")},
	} {
		newFakeAPI(t)
		_, _, err := cli(append([]string{"endpoints", "update", "ep_1"}, args...)...)
		require.Error(t, err, "%v", args)
		assert.True(t, strings.Contains(err.Error(), "--"), "%v", err)
	}
}
