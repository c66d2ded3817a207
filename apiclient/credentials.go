package apiclient

import "github.com/hookd/hookd/apiclient/internal/wire"

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

// nonEmpty is a pointer to s, or nil for "".
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
