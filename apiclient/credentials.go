package apiclient

import (
	"bytes"
	"encoding/json"
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

// MarshalJSON sends "auth": null when RemoveAuth is set.
func (in EndpointInput) MarshalJSON() ([]byte, error) {
	type plain EndpointInput
	b, err := json.Marshal(plain(in))
	if err != nil || !in.RemoveAuth || in.Auth != nil {
		return b, err
	}
	if bytes.Equal(b, []byte("{}")) {
		return []byte(`{"auth":null}`), nil
	}
	return append([]byte(`{"auth":null,`), b[1:]...), nil
}
