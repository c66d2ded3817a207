package api

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/store"
)

// An endpoint's TLS (a client certificate and key for mutual TLS, a CA
// for a receiver on a private CA) is part of its credentials. The
// certificates are shown as they were given, with the client
// certificate's subject, issuer and expiry; the key never is: its place
// holds a marker ("****" and 4 hex digits of the certificate's public
// key's SHA-256), and the marker sent back keeps the key.

// PEM size limits.
const (
	maxClientCertificate = 16 << 10
	maxClientKey         = 16 << 10
	maxCA                = 32 << 10
)

// TLSView is an endpoint's TLS as the API shows it: the certificates as
// given, the key's marker (never the key), and what the certificates say.
type TLSView = wire.EndpointTLSView

// tlsView is t as the API shows it (zero for nil).
func tlsView(t *store.TLS) TLSView {
	if t == nil {
		return TLSView{}
	}
	v := TLSView{ClientCertificate: t.ClientCertificate, CA: t.CA}
	p, err := t.Parse()
	if err != nil {
		// Stored TLS was checked when it was set; show what is there.
		if t.ClientKey != "" {
			v.ClientKey = "****"
		}
		return v
	}
	if p.Leaf != nil {
		v.ClientKey = keyMarker(p)
		v.Subject, v.Issuer = p.Leaf.Subject.String(), p.Leaf.Issuer.String()
		v.NotAfter = p.Leaf.NotAfter.UTC()
	}
	for _, c := range p.CA {
		v.CASubjects = append(v.CASubjects, c.Subject.String())
	}
	return v
}

// keyMarker stands for the client key of p: "****" and the last 4 hex
// digits of the SHA-256 of its certificate's public key.
func keyMarker(p *store.ParsedTLS) string {
	sum := sha256.Sum256(p.Leaf.RawSubjectPublicKeyInfo)
	return "****" + hex.EncodeToString(sum[:])[60:]
}

// validateTLS checks a TLS object; a client_key given as the marker of
// the current key keeps it.
func validateTLS(in wire.EndpointTLS, current *store.TLS) (*store.TLS, error) {
	for _, f := range []struct {
		name, v string
		max     int
	}{{"client_certificate", in.ClientCertificate, maxClientCertificate}, {"client_key", in.ClientKey, maxClientKey}, {"ca", in.CA, maxCA}} {
		if len(f.v) > f.max {
			return nil, invalid("tls."+f.name, "must be at most %s", byteSize(int64(f.max)))
		}
	}
	out := &store.TLS{ClientCertificate: in.ClientCertificate, ClientKey: in.ClientKey, CA: in.CA}
	if current != nil && current.ClientKey != "" {
		if cur, err := current.Parse(); err == nil && cur.Leaf != nil && in.ClientKey == keyMarker(cur) {
			out.ClientKey = current.ClientKey
		}
	}
	if _, err := out.Parse(); err != nil {
		var te *store.TLSError
		if !errors.As(err, &te) {
			return nil, err
		}
		field := "tls"
		if te.Field != "" {
			field += "." + te.Field
		}
		return nil, invalid(field, "%s", te.Message)
	}
	return out, nil
}
