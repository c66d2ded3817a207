package apiclient

import (
	"time"

	"github.com/hookd/hookd/apiclient/internal/wire"
)

// EndpointAuth is how an endpoint authenticates to its receiver: Type
// "bearer" (Token), "basic" (Username, Password) or
// "oauth2_client_credentials" (TokenURL, ClientID, ClientSecret, Scope,
// Audience). In answers its secrets are masked ("****" and the last 4
// characters); a masked secret sent back keeps the secret.
type EndpointAuth struct {
	Type         string `json:"type"`
	Token        string `json:"token,omitempty"`
	Username     string `json:"username,omitempty"`
	Password     string `json:"password,omitempty"`
	TokenURL     string `json:"token_url,omitempty"`
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	Scope        string `json:"scope,omitempty"`
	Audience     string `json:"audience,omitempty"`
}

// wire is a as the document's EndpointAuth (nil for nil).
func (a *EndpointAuth) wire() *wire.EndpointAuth {
	if a == nil {
		return nil
	}
	return &wire.EndpointAuth{
		Type: wire.EndpointAuthType(a.Type), Token: nonEmpty(a.Token), Username: nonEmpty(a.Username), Password: nonEmpty(a.Password),
		TokenURL: nonEmpty(a.TokenURL), ClientID: nonEmpty(a.ClientID), ClientSecret: nonEmpty(a.ClientSecret),
		Scope: nonEmpty(a.Scope), Audience: nonEmpty(a.Audience),
	}
}

// EndpointTLS is an endpoint's TLS to its receiver, in PEM: a client
// certificate and its key, presented to a receiver that requires mutual
// TLS, and a CA that replaces the system's roots. ClientCertificate and
// ClientKey go together; either pair, CA, or all three. A ClientKey
// given as the marker the API shows (EndpointTLSView.ClientKey) keeps the
// key.
type EndpointTLS struct {
	ClientCertificate string `json:"client_certificate,omitempty"`
	ClientKey         string `json:"client_key,omitempty"`
	CA                string `json:"ca,omitempty"`
}

// EndpointTLSView is an endpoint's TLS as the API shows it: the
// certificates as given, the key as a marker, and what the certificates
// say.
type EndpointTLSView struct {
	ClientCertificate string     `json:"client_certificate,omitempty"`
	ClientKey         string     `json:"client_key,omitempty"`
	CA                string     `json:"ca,omitempty"`
	Subject           string     `json:"subject,omitempty"`
	Issuer            string     `json:"issuer,omitempty"`
	NotAfter          *time.Time `json:"not_after,omitempty"`
	CASubjects        []string   `json:"ca_subjects,omitempty"`
}

// wire is t as the document's EndpointTLS (nil for nil).
func (t *EndpointTLS) wire() *wire.EndpointTLS {
	if t == nil {
		return nil
	}
	return &wire.EndpointTLS{ClientCertificate: nonEmpty(t.ClientCertificate), ClientKey: nonEmpty(t.ClientKey), Ca: nonEmpty(t.CA)}
}

// nonEmpty is a pointer to s, or nil for "".
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
