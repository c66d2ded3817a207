package storetest

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// RawCredentialReader is implemented by stores whose at-rest credentials
// the suite can inspect, to check that they are encrypted.
type RawCredentialReader interface {
	// RawCredentials returns the endpoint's stored credentials as they are
	// at rest, nil when it has none.
	RawCredentials(ctx context.Context, endpointID string) ([]byte, error)
}

var credentialCases = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"CredentialsRoundTrip", testCredentialsRoundTrip},
	{"CredentialsUpdate", testCredentialsUpdate},
	{"CredentialsEncryptedAtRest", testCredentialsEncrypted},
	{"CredentialsDeletedWithEndpoint", testCredentialsDeleted},
}

// credentialsFor returns credentials with every kind of value, each
// recognisable.
func credentialsFor(id string, auth *store.Auth) *store.Credentials {
	return &store.Credentials{
		Headers: map[string]string{"X-Api-Key": id + "-plaintext-api-key", "X-Tenant": "t-" + id},
		Auth:    auth,
		TLS:     &store.TLS{ClientCertificate: "cert-" + id, ClientKey: id + "-plaintext-client-key", CA: "ca-" + id},
	}
}

func basicFor(id string) *store.Auth {
	return &store.Auth{Type: store.AuthBasic, Username: "user-" + id, Password: id + "-plaintext-password"}
}

func rawCredentials(t *testing.T, s store.Store, id string) []byte {
	t.Helper()
	raw, ok := s.(RawCredentialReader)
	require.True(t, ok, "%T must implement storetest.RawCredentialReader", s)
	b, err := raw.RawCredentials(context.Background(), id)
	require.NoError(t, err)
	return b
}

// GetEndpoint and ListEndpoints load the credentials; an endpoint without
// any has none; MatchingEndpoints leaves them out.
func testCredentialsRoundTrip(t *testing.T, s store.Store) {
	ctx := context.Background()
	with := newEndpoint("ep_creds", 0, "order.*")
	with.Credentials = credentialsFor(with.ID, basicFor(with.ID))
	create(t, s, with)
	oauth := newEndpoint("ep_oauth", time.Second, "order.*")
	oauth.Credentials = &store.Credentials{Auth: &store.Auth{Type: store.AuthOAuth2, TokenURL: "https://auth.example.com/token",
		ClientID: "cid", ClientSecret: "ep_oauth-plaintext-client-secret", Scope: "a b", Audience: "https://api.example.com"}}
	create(t, s, oauth)
	without := newEndpoint("ep_plain", 2*time.Second, "order.*")
	create(t, s, without)
	empty := newEndpoint("ep_empty", 3*time.Second, "order.*")
	empty.Credentials = &store.Credentials{}
	create(t, s, empty)

	got, err := s.GetEndpoint(ctx, with.ID)
	require.NoError(t, err)
	require.Equal(t, credentialsFor(with.ID, basicFor(with.ID)), got.Credentials)
	got, err = s.GetEndpoint(ctx, oauth.ID)
	require.NoError(t, err)
	require.Equal(t, oauth.Credentials, got.Credentials)
	for _, id := range []string{without.ID, empty.ID} {
		got, err = s.GetEndpoint(ctx, id)
		require.NoError(t, err)
		require.Nil(t, got.Credentials, "%s has no credentials", id)
		require.Nil(t, rawCredentials(t, s, id), "%s stores none", id)
	}

	listed, _, err := s.ListEndpoints(ctx, store.OfTenant(""), store.Page{})
	require.NoError(t, err)
	require.Equal(t, []string{with.ID, oauth.ID, without.ID, empty.ID}, ids(listed))
	require.Equal(t, with.Credentials, listed[0].Credentials)
	require.Equal(t, oauth.Credentials, listed[1].Credentials)
	require.Nil(t, listed[2].Credentials)

	matched, err := s.MatchingEndpoints(ctx, "", "order.created")
	require.NoError(t, err)
	require.Len(t, matched, 4)
	for _, ep := range matched {
		require.Nil(t, ep.Credentials, "matching never opens credentials")
	}
	require.NotContains(t, fmt.Sprintf("%v %+v %#v %s %v", *with.Credentials, with.Credentials, with.Credentials, with.Credentials.Auth, with.Credentials.TLS),
		"plaintext", "credentials print without their values")
}

// An update without credentials keeps them, with some replaces them, with
// empty ones removes them.
func testCredentialsUpdate(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_cu", 0)
	ep.Credentials = credentialsFor(ep.ID, basicFor(ep.ID))
	create(t, s, ep)
	get := func() *store.Endpoint {
		t.Helper()
		got, err := s.GetEndpoint(ctx, ep.ID)
		require.NoError(t, err)
		return got
	}

	changed := *ep
	changed.Credentials = nil
	changed.Description = "changed"
	changed.UpdatedAt = at(time.Minute)
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	require.Equal(t, "changed", get().Description)
	require.Equal(t, ep.Credentials, get().Credentials, "an update without credentials keeps them")

	bearer := &store.Credentials{Headers: map[string]string{"X-Api-Key": "rotated"}, Auth: &store.Auth{Type: store.AuthBearer, Token: "tok"}}
	changed.Credentials = bearer
	changed.UpdatedAt = at(2 * time.Minute)
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	require.Equal(t, bearer, get().Credentials)

	changed.Credentials = &store.Credentials{}
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	require.Nil(t, get().Credentials, "empty credentials remove them")
	require.Nil(t, rawCredentials(t, s, ep.ID))

	changed.Credentials = &store.Credentials{Headers: map[string]string{"X-Again": "v"}}
	require.NoError(t, s.UpdateEndpoint(ctx, &changed))
	require.Equal(t, changed.Credentials, get().Credentials)

	missing := newEndpoint("ep_cu_missing", 0)
	missing.Credentials = bearer
	require.ErrorIs(t, s.UpdateEndpoint(ctx, missing), store.ErrNotFound)
	require.Nil(t, rawCredentials(t, s, missing.ID), "a failed update stores nothing")
}

func testCredentialsEncrypted(t *testing.T, s store.Store) {
	ep := newEndpoint("ep_ce", 0)
	ep.Credentials = credentialsFor(ep.ID, basicFor(ep.ID))
	create(t, s, ep)
	raw := rawCredentials(t, s, ep.ID)
	require.NotEmpty(t, raw)
	for _, plain := range []string{"plaintext", "X-Api-Key", "user-" + ep.ID} {
		require.False(t, bytes.Contains(raw, []byte(plain)), "%q is stored in plaintext", plain)
	}
}

// Deleting an endpoint, or its tenant, deletes its credentials.
func testCredentialsDeleted(t *testing.T, s store.Store) {
	ctx := context.Background()
	ep := newEndpoint("ep_cd", 0)
	ep.Credentials = credentialsFor(ep.ID, nil)
	create(t, s, ep)
	require.NotNil(t, rawCredentials(t, s, ep.ID))
	require.NoError(t, s.DeleteEndpoint(ctx, ep.ID))
	require.Nil(t, rawCredentials(t, s, ep.ID))

	_, _, err := s.PutTenant(ctx, &store.Tenant{ID: "acme-creds", CreatedAt: t0, UpdatedAt: t0})
	require.NoError(t, err)
	owned := tenantEndpoint("ep_cd_t", "acme-creds", 0)
	owned.Credentials = credentialsFor(owned.ID, &store.Auth{Type: store.AuthBearer, Token: "tok"})
	create(t, s, owned)
	require.NotNil(t, rawCredentials(t, s, owned.ID))
	require.NoError(t, s.DeleteTenant(ctx, "acme-creds"))
	require.Nil(t, rawCredentials(t, s, owned.ID))
}
