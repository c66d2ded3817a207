package store

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"strings"
	"time"
)

// TLS is an endpoint's TLS to its receiver, as PEM: a client certificate
// (the leaf first, then any intermediates) with its private key, for a
// receiver that requires mutual TLS, and a CA (one or more certificates)
// that replaces the system's roots, for a receiver whose certificate a
// private CA issued. ClientCertificate and ClientKey are set together or
// not at all; at least one of them and CA is set. ClientKey is a
// credential: it is sealed with the rest and never shown.
type TLS struct {
	ClientCertificate, ClientKey, CA string
}

// String says what is set, never a value.
func (t TLS) String() string {
	var parts []string
	if t.ClientCertificate != "" {
		parts = append(parts, "client certificate")
	}
	if t.CA != "" {
		parts = append(parts, "ca")
	}
	return "tls(" + strings.Join(parts, ", ") + ")"
}

// GoString is String.
func (t TLS) GoString() string { return t.String() }

// LogValue is String, for log/slog.
func (t TLS) LogValue() slog.Value { return slog.StringValue(t.String()) }

// ParsedTLS is TLS ready for a handshake.
type ParsedTLS struct {
	// Certificate is the client certificate with its key; nil without one.
	Certificate *tls.Certificate
	// Leaf is Certificate's first certificate, the one presented.
	Leaf *x509.Certificate
	// CA are the CA's certificates, and Roots the pool of them (nil: the
	// system's roots).
	CA    []*x509.Certificate
	Roots *x509.CertPool
}

// TLSError is what is wrong with one field of a TLS ("client_certificate",
// "client_key" or "ca"; "" for the whole). Its message never holds a
// value.
type TLSError struct {
	Field, Message string
}

func (e *TLSError) Error() string {
	if e.Field == "" {
		return "tls: " + e.Message
	}
	return "tls." + e.Field + ": " + e.Message
}

// Parse checks t and makes it ready for a handshake: the certificates
// parse, the key parses, is not encrypted and is the certificate's key.
// An expired certificate parses: it is refused when an attempt would
// present it (Expired).
func (t TLS) Parse() (*ParsedTLS, error) {
	switch {
	case t.ClientCertificate == "" && t.ClientKey == "" && t.CA == "":
		return nil, &TLSError{"", "set client_certificate and client_key, ca, or all three"}
	case t.ClientCertificate != "" && t.ClientKey == "":
		return nil, &TLSError{"client_key", "is required with client_certificate"}
	case t.ClientKey != "" && t.ClientCertificate == "":
		return nil, &TLSError{"client_certificate", "is required with client_key"}
	}
	var p ParsedTLS
	if t.ClientCertificate != "" {
		certs, ders, err := parseCertificates("client_certificate", t.ClientCertificate)
		if err != nil {
			return nil, err
		}
		key, err := parsePrivateKey(t.ClientKey)
		if err != nil {
			return nil, err
		}
		pub, ok := certs[0].PublicKey.(interface{ Equal(crypto.PublicKey) bool })
		if !ok || !pub.Equal(key.Public()) {
			return nil, &TLSError{"client_key", "does not match tls.client_certificate (the first certificate is the one presented)"}
		}
		p.Leaf = certs[0]
		p.Certificate = &tls.Certificate{Certificate: ders, PrivateKey: key, Leaf: certs[0]}
	}
	if t.CA != "" {
		certs, _, err := parseCertificates("ca", t.CA)
		if err != nil {
			return nil, err
		}
		p.CA, p.Roots = certs, x509.NewCertPool()
		for _, c := range certs {
			p.Roots.AddCert(c)
		}
	}
	return &p, nil
}

// Expired says whether the client certificate cannot be presented at now
// (expired, or not yet valid), and since or until when.
func (p *ParsedTLS) Expired(now time.Time) (bool, time.Time) {
	switch {
	case p.Leaf == nil:
		return false, time.Time{}
	case now.After(p.Leaf.NotAfter):
		return true, p.Leaf.NotAfter
	case now.Before(p.Leaf.NotBefore):
		return true, p.Leaf.NotBefore
	}
	return false, time.Time{}
}

// parseCertificates reads one or more PEM certificates; text around the
// blocks is ignored.
func parseCertificates(field, in string) ([]*x509.Certificate, [][]byte, error) {
	var (
		certs []*x509.Certificate
		ders  [][]byte
	)
	rest := []byte(in)
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			return nil, nil, &TLSError{field, "must hold only CERTIFICATE PEM blocks, not " + blockKind(b.Type)}
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, nil, &TLSError{field, "holds a CERTIFICATE block that is not an X.509 certificate"}
		}
		certs, ders = append(certs, c), append(ders, b.Bytes)
	}
	if len(certs) == 0 {
		return nil, nil, &TLSError{field, "must be PEM: one or more -----BEGIN CERTIFICATE----- blocks"}
	}
	return certs, ders, nil
}

// parsePrivateKey reads one PEM private key: PKCS #8, PKCS #1 (RSA) or
// SEC 1 (EC), unencrypted, of a type TLS signs with.
func parsePrivateKey(in string) (crypto.Signer, error) {
	const field = "client_key"
	b, rest := pem.Decode([]byte(in))
	if b == nil {
		return nil, &TLSError{field, "must be PEM: a -----BEGIN PRIVATE KEY----- block"}
	}
	if next, _ := pem.Decode(rest); next != nil {
		return nil, &TLSError{field, "must hold one PEM block, the private key"}
	}
	if b.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(b.Headers["Proc-Type"], "ENCRYPTED") {
		return nil, &TLSError{field, "must not be encrypted"}
	}
	var (
		key any
		err error
	)
	switch b.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(b.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(b.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(b.Bytes)
	default:
		return nil, &TLSError{field, "must be a PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY PEM block, not " + blockKind(b.Type)}
	}
	if err != nil {
		return nil, &TLSError{field, "holds a " + b.Type + " block that does not parse"}
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, &TLSError{field, "is not an RSA, ECDSA or Ed25519 key"}
	}
	return signer, nil
}

// blockKind names a PEM block's type for a message: known types as they
// are, anything else as "another block" (a type is the user's text).
func blockKind(t string) string {
	switch t {
	case "CERTIFICATE", "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PUBLIC KEY", "CERTIFICATE REQUEST":
		return "a " + t + " block"
	}
	return "another kind of block"
}
