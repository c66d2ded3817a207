package store

import (
	"log/slog"
	"sort"
	"strings"
)

// The kinds of Auth.
const (
	AuthBearer = "bearer"
	AuthBasic  = "basic"
	// AuthOAuth2 is the OAuth 2.0 client credentials grant (RFC 6749
	// section 4.4): a token fetched from TokenURL, sent as a bearer token.
	AuthOAuth2 = "oauth2_client_credentials"
)

// Credentials are what an endpoint sends its receiver beside hookd's own
// headers: custom headers and an authentication. Receivers treat them as
// credentials, so they are sealed at rest with the signing secrets' key
// and never leave the store but to the attempt that sends them and, masked,
// to the API. String and LogValue never show a value.
type Credentials struct {
	// Headers are sent on every attempt, by canonical name.
	Headers map[string]string
	// Auth, when set, authenticates every attempt.
	Auth *Auth
	// TLS, when set, is the client certificate every attempt presents
	// and the CA it trusts the receiver's certificate with.
	TLS *TLS
}

// Auth is how an endpoint authenticates to its receiver. Which fields are
// set depends on Type.
type Auth struct {
	Type string
	// Token is the bearer token (AuthBearer).
	Token string
	// Username and Password are the basic credentials (AuthBasic).
	Username, Password string
	// TokenURL, ClientID, ClientSecret, Scope and Audience are the client
	// credentials grant's (AuthOAuth2); Scope and Audience are optional.
	TokenURL, ClientID, ClientSecret, Scope, Audience string
}

// Empty reports whether c holds nothing to send (c may be nil).
func (c *Credentials) Empty() bool {
	return c == nil || (len(c.Headers) == 0 && c.Auth == nil && c.TLS == nil)
}

// String names the headers and the auth type, never a value.
func (c Credentials) String() string {
	names := make([]string, 0, len(c.Headers))
	for k := range c.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	auth := "none"
	if c.Auth != nil {
		auth = c.Auth.Type
	}
	tls := "none"
	if c.TLS != nil {
		tls = c.TLS.String()
	}
	return "credentials(headers: [" + strings.Join(names, " ") + "], auth: " + auth + ", tls: " + tls + ")"
}

// GoString is String, so that %#v shows no value either.
func (c Credentials) GoString() string { return c.String() }

// LogValue is String, for log/slog.
func (c Credentials) LogValue() slog.Value { return slog.StringValue(c.String()) }

// String names the type, never a value.
func (a Auth) String() string { return "auth(" + a.Type + ")" }

// GoString is String.
func (a Auth) GoString() string { return a.String() }

// LogValue is String, for log/slog.
func (a Auth) LogValue() slog.Value { return slog.StringValue(a.String()) }
