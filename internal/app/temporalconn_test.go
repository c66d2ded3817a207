package app

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
)

func TestTemporalClientOptions(t *testing.T) {
	dir := t.TempDir()
	cert, key := writeCert(t, dir)
	log := slog.New(slog.DiscardHandler)
	base := TemporalConfig{Address: "temporal:7233", Namespace: "hookd"}

	opts, err := base.clientOptions(log)
	if err != nil || opts.ConnectionOptions.TLS != nil || opts.Credentials != nil {
		t.Errorf("plain: TLS %v, credentials %v, err %v; want neither", opts.ConnectionOptions.TLS, opts.Credentials, err)
	}
	if _, ok := opts.ConnectionOptions.GrpcCompression.(*client.GrpcCompressionNone); !ok {
		t.Errorf("default compression %T, want none", opts.ConnectionOptions.GrpcCompression)
	}
	gz := base
	gz.Compression = CompressionGzip
	if opts, err := gz.clientOptions(log); err != nil {
		t.Errorf("gzip: %v", err)
	} else if _, ok := opts.ConnectionOptions.GrpcCompression.(*client.GrpcCompressionGzip); !ok {
		t.Errorf("gzip: compression %T", opts.ConnectionOptions.GrpcCompression)
	}

	c := base
	c.TLSCert, c.TLSKey, c.TLSCA, c.TLSServerName = cert, key, cert, "temporal.internal"
	opts, err = c.clientOptions(log)
	if err != nil {
		t.Fatal(err)
	}
	tlsCfg := opts.ConnectionOptions.TLS
	if tlsCfg == nil || len(tlsCfg.Certificates) != 1 || tlsCfg.RootCAs == nil || tlsCfg.ServerName != "temporal.internal" {
		t.Errorf("mTLS: %+v", tlsCfg)
	}

	c = base
	c.APIKey = "secret-api-key"
	opts, err = c.clientOptions(log)
	if err != nil || opts.Credentials == nil || opts.ConnectionOptions.TLS == nil {
		t.Errorf("API key: credentials %v, TLS %v, err %v; want both", opts.Credentials, opts.ConnectionOptions.TLS, err)
	}

	for name, bad := range map[string]TemporalConfig{
		"cert without key": {Address: "a:1", Namespace: "n", TLSCert: cert},
		"missing CA file":  {Address: "a:1", Namespace: "n", TLSCA: filepath.Join(dir, "nope.pem")},
		"CA not PEM":       {Address: "a:1", Namespace: "n", TLSCA: writeFile(t, dir, "bad.pem", "not pem")},
		"no address":       {Namespace: "n"},
		"no namespace":     {Address: "a:1"},
		"compression zstd": {Address: "a:1", Namespace: "n", Compression: "zstd"},
	} {
		bad.APIKey = "secret-api-key"
		if _, err := bad.clientOptions(log); err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "secret-api-key") {
			t.Errorf("%s: error shows the API key: %v", name, err)
		}
	}
}

// writeCert writes a self-signed certificate and its key as PEM files.
func writeCert(t *testing.T, dir string) (certPath, keyPath string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hookd"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	certPath = writeFile(t, dir, "cert.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	keyPath = writeFile(t, dir, "key.pem", string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})))
	return certPath, keyPath
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
