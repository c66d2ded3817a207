package api

import (
	"errors"
	"net/textproto"
	"slices"
	"strings"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/store"
)

// An endpoint's custom headers and auth are credentials: the API takes
// them in full and only ever shows them masked (mask), in the answers to
// create too. A value sent back as the mask of the value it replaces
// keeps that value, so a client (the portal's form) can send back what it
// was shown.

// Header limits.
const (
	maxHeaders     = 20
	maxHeaderName  = 256
	maxHeaderValue = 4 << 10
	maxAuthValue   = 4 << 10
)

// reservedHeaders are the headers an endpoint may not set, by lower-case
// name: hookd's own and those that frame the request or concern one hop.
// Names starting with "webhook-" or "hookd-" are hookd's too.
var reservedHeaders = map[string]bool{
	"content-type": true, "content-length": true, "content-encoding": true, "host": true,
	"transfer-encoding": true, "connection": true, "keep-alive": true, "proxy-connection": true,
	"proxy-authorization": true, "te": true, "trailer": true, "upgrade": true, "expect": true,
	"user-agent": true,
}

// AuthView is an endpoint's auth as the API shows it: its secrets masked.
type AuthView = wire.EndpointAuth

// Mask is how the API shows a credential: "****" and, for a value of 8
// characters or more, its last 4.
func Mask(v string) string {
	r := []rune(v)
	if len(r) < 8 {
		return "****"
	}
	return "****" + string(r[len(r)-4:])
}

// credentialsView is the masked headers (nil when none) and auth (zero
// when none) of c.
func credentialsView(c *store.Credentials) (wire.EndpointHeaders, AuthView) {
	if c == nil {
		return nil, AuthView{}
	}
	var headers wire.EndpointHeaders
	for k, v := range c.Headers {
		if headers == nil {
			headers = wire.EndpointHeaders{}
		}
		headers[k] = Mask(v)
	}
	a := c.Auth
	if a == nil {
		return headers, AuthView{}
	}
	v := AuthView{Type: wire.EndpointAuthType(a.Type), Username: a.Username, TokenURL: a.TokenURL, ClientID: a.ClientID, Scope: a.Scope, Audience: a.Audience}
	for _, f := range []struct{ in, out *string }{{&a.Token, &v.Token}, {&a.Password, &v.Password}, {&a.ClientSecret, &v.ClientSecret}} {
		if *f.in != "" {
			*f.out = Mask(*f.in)
		}
	}
	return headers, v
}

// applyCredentials validates the patch's headers, auth and TLS and sets
// ep.Credentials to the endpoint's credentials after it.
func (s *Server) applyCredentials(p wire.EndpointPatch, ep *store.Endpoint) error {
	var next store.Credentials
	if ep.Credentials != nil {
		next = *ep.Credentials
	}
	if !p.Auth.IsZero() {
		var a *store.Auth
		if in, ok := p.Auth.Value(); ok {
			var err error
			if a, err = s.validateAuth(in, next.Auth); err != nil {
				return err
			}
		}
		next.Auth = a
	}
	if !p.TLS.IsZero() {
		next.TLS = nil
		if in, ok := p.TLS.Value(); ok {
			t, err := validateTLS(in, currentTLS(ep.Credentials))
			if err != nil {
				return err
			}
			next.TLS = t
		}
	}
	if p.Headers != nil {
		h, err := validateHeaders(*p.Headers, next.Headers)
		if err != nil {
			return err
		}
		next.Headers = h
	}
	if next.Auth != nil {
		if _, ok := next.Headers["Authorization"]; ok {
			return invalid("headers.Authorization", "is set by auth: remove auth or this header")
		}
	}
	ep.Credentials = &next
	return nil
}

// validateHeaders checks custom headers and returns them by canonical
// name; a value given as the mask of the current one keeps it.
func validateHeaders(in, current map[string]string) (map[string]string, error) {
	if len(in) > maxHeaders {
		return nil, invalid("headers", "must have at most %d headers", maxHeaders)
	}
	names := make([]string, 0, len(in))
	for k := range in {
		names = append(names, k)
	}
	slices.Sort(names)
	out := make(map[string]string, len(in))
	for _, name := range names {
		v := in[name]
		field := "headers." + name
		if !validToken(name) {
			if len(name) > 64 {
				field = "headers"
			}
			return nil, invalid(field, "header name %q must be 1 to %d characters of an HTTP token", truncate(name, 64), maxHeaderName)
		}
		lower := strings.ToLower(name)
		switch {
		case strings.HasPrefix(lower, "webhook-"), strings.HasPrefix(lower, "hookd-"):
			return nil, invalid(field, "header %s is reserved: hookd sets webhook-* and hookd-* headers itself", name)
		case reservedHeaders[lower]:
			return nil, invalid(field, "header %s is reserved: hookd sets it itself or it concerns the connection", name)
		}
		canon := textproto.CanonicalMIMEHeaderKey(name)
		if _, dup := out[canon]; dup {
			return nil, invalid(field, "header %s is given twice (names are case-insensitive)", name)
		}
		if cur, ok := current[canon]; ok && v == Mask(cur) {
			v = cur
		}
		if err := validateCredential(field, v, maxHeaderValue); err != nil {
			return nil, err
		}
		out[canon] = v
	}
	return out, nil
}

// validateCredential checks a header value or secret: 1 to max bytes,
// no CR, LF or other control character. Its message never holds v.
func validateCredential(field, v string, max int) error {
	switch {
	case v == "":
		return invalid(field, "must not be empty")
	case len(v) > max:
		return invalid(field, "must be at most %s", byteSize(int64(max)))
	case strings.ContainsAny(v, "\r\n"):
		return invalid(field, "must not contain CR or LF")
	}
	for _, r := range v {
		if (r < 0x20 && r != '\t') || r == 0x7f {
			return invalid(field, "must not contain control characters")
		}
	}
	return nil
}

// validToken reports whether s is an HTTP token (RFC 9110 section 5.6.2)
// of at most maxHeaderName bytes.
func validToken(s string) bool {
	if s == "" || len(s) > maxHeaderName {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// authFields are the fields each type of auth takes.
var authFields = map[string][]string{
	store.AuthBearer: {"token"},
	store.AuthBasic:  {"username", "password"},
	store.AuthOAuth2: {"token_url", "client_id", "client_secret", "scope", "audience"},
}

// validateAuth checks an auth object; a secret given as the mask of the
// current one (of the same type) keeps it.
func (s *Server) validateAuth(in wire.EndpointAuth, current *store.Auth) (*store.Auth, error) {
	typ := string(in.Type)
	fields := authFields[typ]
	if typ == "" {
		return nil, invalid("auth.type", "is required: bearer, basic or oauth2_client_credentials")
	}
	if fields == nil {
		return nil, invalid("auth.type", "must be bearer, basic or oauth2_client_credentials")
	}
	given := map[string]string{"token": in.Token, "username": in.Username, "password": in.Password, "token_url": in.TokenURL,
		"client_id": in.ClientID, "client_secret": in.ClientSecret, "scope": in.Scope, "audience": in.Audience}
	for _, name := range []string{"token", "username", "password", "token_url", "client_id", "client_secret", "scope", "audience"} {
		if given[name] != "" && !slices.Contains(fields, name) {
			return nil, invalid("auth."+name, "is not used by %s auth", typ)
		}
	}
	keep := func(v, cur string) string {
		if current != nil && current.Type == typ && cur != "" && v == Mask(cur) {
			return cur
		}
		return v
	}
	out := &store.Auth{Type: typ}
	switch typ {
	case store.AuthBearer:
		out.Token = keep(in.Token, tokenOf(current))
		return out, validateCredential("auth.token", out.Token, maxAuthValue)
	case store.AuthBasic:
		out.Username = in.Username
		if current != nil {
			out.Password = keep(in.Password, current.Password)
		} else {
			out.Password = in.Password
		}
		if err := validateCredential("auth.username", out.Username, 256); err != nil {
			return nil, err
		}
		if strings.Contains(out.Username, ":") {
			return nil, invalid("auth.username", "must not contain a colon")
		}
		return out, validateCredential("auth.password", out.Password, maxAuthValue)
	default:
		out.TokenURL, out.ClientID, out.Scope, out.Audience = in.TokenURL, in.ClientID, in.Scope, in.Audience
		if current != nil {
			out.ClientSecret = keep(in.ClientSecret, current.ClientSecret)
		} else {
			out.ClientSecret = in.ClientSecret
		}
		if err := s.validateURL(in.TokenURL); err != nil {
			var e *Error
			if errors.As(err, &e) {
				return nil, invalid("auth.token_url", "%s", e.Message)
			}
			return nil, err
		}
		if err := validateCredential("auth.client_id", out.ClientID, 256); err != nil {
			return nil, err
		}
		if err := validateCredential("auth.client_secret", out.ClientSecret, maxAuthValue); err != nil {
			return nil, err
		}
		for _, f := range []struct{ name, v string }{{"scope", out.Scope}, {"audience", out.Audience}} {
			if f.v != "" {
				if err := validateCredential("auth."+f.name, f.v, 2048); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	}
}

func currentTLS(c *store.Credentials) *store.TLS {
	if c == nil {
		return nil
	}
	return c.TLS
}

func tokenOf(a *store.Auth) string {
	if a == nil {
		return ""
	}
	return a.Token
}
