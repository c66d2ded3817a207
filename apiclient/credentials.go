package apiclient

import "github.com/hookd/hookd/apiclient/wire"

// EndpointAuth is how an endpoint authenticates to its receiver: Type
// "bearer" (Token), "basic" (Username, Password) or
// "oauth2_client_credentials" (TokenURL, ClientID, ClientSecret, Scope,
// Audience). In answers its secrets are masked ("****" and the last 4
// characters); a masked secret sent back keeps the secret.
type EndpointAuth = wire.EndpointAuth

// EndpointTLS is an endpoint's TLS to its receiver, in PEM: a client
// certificate and its key, presented to a receiver that requires mutual
// TLS, and a CA that replaces the system's roots. ClientCertificate and
// ClientKey go together; either pair, Ca, or all three. A ClientKey
// given as the marker the API shows (EndpointTLSView.ClientKey) keeps the
// key.
type EndpointTLS = wire.EndpointTLS

// EndpointTLSView is an endpoint's TLS as the API shows it: the
// certificates as given, the key as a marker, and what the certificates
// say.
type EndpointTLSView = wire.EndpointTLSView
