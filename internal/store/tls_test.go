package store_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/testkit"
)

func TestTLSParse(t *testing.T) {
	ca := testkit.NewCA(t, "test CA")
	client := ca.IssueNow(t, "client")
	other := ca.IssueNow(t, "other")

	p, err := store.TLS{ClientCertificate: client.CertPEM, ClientKey: client.KeyPEM, CA: ca.PEM}.Parse()
	require.NoError(t, err)
	require.NotNil(t, p.Certificate)
	assert.Equal(t, "client", p.Leaf.Subject.CommonName)
	require.Len(t, p.CA, 1)
	assert.Equal(t, "test CA", p.CA[0].Subject.CommonName)

	p, err = store.TLS{CA: ca.PEM + ca.PEM}.Parse()
	require.NoError(t, err, "a CA alone")
	assert.Nil(t, p.Certificate)
	assert.Len(t, p.CA, 2)

	// A chain: the leaf and then its CA; text around blocks is ignored.
	_, err = store.TLS{ClientCertificate: "subject=client\n" + client.CertPEM + ca.PEM, ClientKey: client.KeyPEM}.Parse()
	require.NoError(t, err)

	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	rsaPKCS1 := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}))
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ecDER, err := x509.MarshalECPrivateKey(ecKey)
	require.NoError(t, err)
	sec1 := string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecDER}))
	encrypted := strings.Replace(client.KeyPEM, "PRIVATE KEY", "ENCRYPTED PRIVATE KEY", 2)
	keyText := strings.Split(client.KeyPEM, "\n")[1]

	cases := []struct {
		name  string
		in    store.TLS
		field string
	}{
		{"empty", store.TLS{}, ""},
		{"certificate without key", store.TLS{ClientCertificate: client.CertPEM}, "client_key"},
		{"key without certificate", store.TLS{ClientKey: client.KeyPEM, CA: ca.PEM}, "client_certificate"},
		{"certificate not PEM", store.TLS{ClientCertificate: "hello", ClientKey: client.KeyPEM}, "client_certificate"},
		{"key in the certificate field", store.TLS{ClientCertificate: client.KeyPEM, ClientKey: client.KeyPEM}, "client_certificate"},
		{"certificate block of garbage", store.TLS{ClientCertificate: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", ClientKey: client.KeyPEM}, "client_certificate"},
		{"key not PEM", store.TLS{ClientCertificate: client.CertPEM, ClientKey: keyText}, "client_key"},
		{"key is a certificate", store.TLS{ClientCertificate: client.CertPEM, ClientKey: client.CertPEM}, "client_key"},
		{"two keys", store.TLS{ClientCertificate: client.CertPEM, ClientKey: client.KeyPEM + client.KeyPEM}, "client_key"},
		{"encrypted key", store.TLS{ClientCertificate: client.CertPEM, ClientKey: encrypted}, "client_key"},
		{"key that does not parse", store.TLS{ClientCertificate: client.CertPEM, ClientKey: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}, "client_key"},
		{"another certificate's key", store.TLS{ClientCertificate: client.CertPEM, ClientKey: other.KeyPEM}, "client_key"},
		{"an RSA key for an EC certificate", store.TLS{ClientCertificate: client.CertPEM, ClientKey: rsaPKCS1}, "client_key"},
		{"a SEC 1 key for another certificate", store.TLS{ClientCertificate: client.CertPEM, ClientKey: sec1}, "client_key"},
		{"CA not PEM", store.TLS{CA: "not a CA"}, "ca"},
		{"CA holding a key", store.TLS{CA: ca.PEM + client.KeyPEM}, "ca"},
	}
	for _, c := range cases {
		_, err := c.in.Parse()
		var te *store.TLSError
		require.ErrorAs(t, err, &te, c.name)
		assert.Equal(t, c.field, te.Field, "%s: %s", c.name, te.Message)
		assert.NotContains(t, err.Error(), keyText, "%s: a value is never repeated", c.name)
	}
}

func TestTLSExpired(t *testing.T) {
	ca := testkit.NewCA(t, "test CA")
	now := time.Now()
	for _, c := range []struct {
		name     string
		from, to time.Time
		expired  bool
		at       time.Time
	}{
		{"valid", now.Add(-time.Hour), now.Add(time.Hour), false, time.Time{}},
		{"expired", now.Add(-2 * time.Hour), now.Add(-time.Hour), true, now.Add(-time.Hour)},
		{"not yet valid", now.Add(time.Hour), now.Add(2 * time.Hour), true, now.Add(time.Hour)},
	} {
		cert := ca.Issue(t, "client", c.from, c.to)
		p, err := store.TLS{ClientCertificate: cert.CertPEM, ClientKey: cert.KeyPEM}.Parse()
		require.NoError(t, err, "an expired certificate is stored: attempts refuse it")
		expired, at := p.Expired(now)
		assert.Equal(t, c.expired, expired, c.name)
		assert.WithinDuration(t, c.at, at, time.Second, c.name)
	}
	p, err := store.TLS{CA: ca.PEM}.Parse()
	require.NoError(t, err)
	expired, _ := p.Expired(now)
	assert.False(t, expired, "no client certificate, nothing expires")
}

func TestTLSPrintsNoValue(t *testing.T) {
	tl := store.TLS{ClientCertificate: "cert", ClientKey: "secret-key", CA: "ca"}
	out := fmt.Sprintf("%v %+v %#v %s", tl, &tl, tl, store.Credentials{TLS: &tl})
	assert.NotContains(t, out, "secret-key")
	assert.Contains(t, out, "tls(client certificate, ca)")
}
