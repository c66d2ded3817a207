package portal

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/store"
)

// The endpoint form's custom headers (a textarea, one "Name: value" a
// line), auth (a type and its fields) and TLS (a textarea for each PEM). It shows the values masked as
// the API does; a masked value submitted unchanged keeps its value, since
// the API keeps a value given as its own mask.
type credentialForm struct {
	Headers                    string
	AuthType, AuthToken        string
	AuthUsername, AuthPassword string
	// TLSCertificate, TLSKey and TLSCA are the client certificate, its
	// key (shown as the API's marker, which keeps it) and the CA, in PEM.
	TLSCertificate, TLSKey, TLSCA string
}

func credentialFormOf(ep api.EndpointView) credentialForm {
	var lines []string
	for k, v := range ep.Headers {
		lines = append(lines, k+": "+v)
	}
	sort.Strings(lines)
	f := credentialForm{Headers: strings.Join(lines, "\n")}
	a, t := ep.Auth, ep.TLS
	f.AuthType, f.AuthToken, f.AuthUsername, f.AuthPassword = string(a.Type), a.Token, a.Username, a.Password
	f.TLSCertificate, f.TLSKey, f.TLSCA = t.ClientCertificate, t.ClientKey, t.CA
	return f
}

func readCredentialForm(r *http.Request) credentialForm {
	return credentialForm{Headers: r.PostFormValue("headers"), AuthType: r.PostFormValue("auth_type"),
		AuthToken: r.PostFormValue("auth_token"), AuthUsername: r.PostFormValue("auth_username"), AuthPassword: r.PostFormValue("auth_password"),
		TLSCertificate: strings.TrimSpace(r.PostFormValue("tls_client_certificate")), TLSKey: strings.TrimSpace(r.PostFormValue("tls_client_key")),
		TLSCA: strings.TrimSpace(r.PostFormValue("tls_ca"))}
}

// patch sets the form's headers, auth and TLS on p (TLS left empty
// removes it). An OAuth 2.0 auth, which the form does not edit, is left
// as it is.
func (f credentialForm) patch(p *api.EndpointPatch) {
	headers := map[string]string{}
	for i, line := range strings.Split(f.Headers, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			// Not the line itself: it may be a value typed without its name.
			name, value = fmt.Sprintf("(line %d)", i+1), ""
		}
		headers[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	p.Headers = (*wire.EndpointHeaders)(&headers)
	p.TLS = wire.Null[wire.EndpointTLS]()
	if f.TLSCertificate != "" || f.TLSKey != "" || f.TLSCA != "" {
		p.TLS = wire.Set(wire.EndpointTLS{ClientCertificate: f.TLSCertificate, ClientKey: f.TLSKey, CA: f.TLSCA})
	}
	typ := wire.EndpointAuthType(f.AuthType)
	switch f.AuthType {
	case "":
		p.Auth = wire.Null[wire.EndpointAuth]()
	case store.AuthBearer:
		p.Auth = wire.Set(wire.EndpointAuth{Type: typ, Token: f.AuthToken})
	case store.AuthBasic:
		p.Auth = wire.Set(wire.EndpointAuth{Type: typ, Username: f.AuthUsername, Password: f.AuthPassword})
	case store.AuthOAuth2:
	default:
		p.Auth = wire.Set(wire.EndpointAuth{Type: typ})
	}
}

// credentialError is the form field an API error about headers or auth
// is shown at: the textarea for any header, the auth's own inputs, the
// type's select for the rest.
func credentialError(e *api.Error) *api.Error {
	switch {
	case strings.HasPrefix(e.Field, "headers."):
		return &api.Error{Code: e.Code, Field: "headers", Message: strings.TrimPrefix(e.Field, "headers.") + ": " + e.Message}
	case e.Field == "auth.token", e.Field == "auth.username", e.Field == "auth.password":
		return &api.Error{Code: e.Code, Field: strings.Replace(e.Field, ".", "_", 1), Message: e.Message}
	case strings.HasPrefix(e.Field, "auth."):
		return &api.Error{Code: e.Code, Field: "auth", Message: e.Error()}
	case e.Field == "tls.client_key", e.Field == "tls.ca":
		return &api.Error{Code: e.Code, Field: strings.Replace(e.Field, ".", "_", 1), Message: e.Message}
	case strings.HasPrefix(e.Field, "tls"):
		return &api.Error{Code: e.Code, Field: "tls_client_certificate", Message: e.Message}
	}
	return e
}
