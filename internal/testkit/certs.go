package testkit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// CA is a certificate authority a test makes, to issue a TLS receiver's
// certificate or a client certificate (ECDSA P-256, fast to make).
type CA struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// PEM is the CA's certificate.
	PEM string
	// Pool holds the CA's certificate.
	Pool *x509.CertPool
}

// Issued is a certificate a CA issued, as PEM and ready for tls.
type Issued struct {
	CertPEM, KeyPEM string
	TLS             tls.Certificate
}

// NewCA makes a self-signed CA named cn.
func NewCA(t testing.TB, cn string) *CA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: serial(t), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatalf("create CA: %v", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("parse CA: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &CA{Cert: cert, key: key, PEM: pemOf("CERTIFICATE", der), Pool: pool}
}

// Issue issues a certificate for cn, valid from notBefore to notAfter,
// for both server and client authentication; a server certificate
// covers 127.0.0.1 and localhost.
func (ca *CA) Issue(t testing.TB, cn string, notBefore, notAfter time.Time) Issued {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: serial(t), Subject: pkix.Name{CommonName: cn}, NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatalf("issue %s: %v", cn, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatalf("marshal key: %v", err)
	}
	certPEM, keyPEM := pemOf("CERTIFICATE", der), pemOf("PRIVATE KEY", keyDER)
	pair, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM))
	if err != nil {
		t.Fatalf("key pair: %v", err)
	}
	return Issued{CertPEM: certPEM, KeyPEM: keyPEM, TLS: pair}
}

// IssueNow is Issue valid from an hour ago for a day.
func (ca *CA) IssueNow(t testing.TB, cn string) Issued {
	return ca.Issue(t, cn, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("generate key: %v", err)
	}
	return key
}

func serial(t testing.TB) *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatalf("serial: %v", err)
	}
	return n
}

func pemOf(kind string, der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}))
}

// MutualTLS is a TLS server whose certificate ServerCA issued (for
// 127.0.0.1) and which requires a client certificate ClientCA issued.
type MutualTLS struct {
	*httptest.Server
	ServerCA, ClientCA *CA
}

// NewMutualTLS starts a MutualTLS serving h, closed at the test's end.
// Its refused handshakes are not logged.
func NewMutualTLS(t testing.TB, h http.Handler) *MutualTLS {
	t.Helper()
	m := &MutualTLS{ServerCA: NewCA(t, "Receiver CA"), ClientCA: NewCA(t, "Client CA")}
	m.Server = httptest.NewUnstartedServer(h)
	m.TLS = &tls.Config{
		Certificates: []tls.Certificate{m.ServerCA.IssueNow(t, "receiver").TLS},
		ClientAuth:   tls.RequireAndVerifyClientCert, ClientCAs: m.ClientCA.Pool,
	}
	m.Config.ErrorLog = log.New(io.Discard, "", 0)
	m.StartTLS()
	t.Cleanup(m.Close)
	return m
}
