package authz

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

func TestScopeRules(t *testing.T) {
	platform, a, none := Platform("key"), ForTenant("a", "tok"), Scope{}

	require.NoError(t, platform.Allow(PlatformOnly))
	require.NoError(t, platform.Allow(TenantScoped))
	require.ErrorIs(t, a.Allow(PlatformOnly), ErrForbidden)
	require.NoError(t, a.Allow(TenantScoped))
	require.ErrorIs(t, a.Allow(Access(0)), ErrForbidden, "an unclassified route is refused to tenants")
	require.ErrorIs(t, none.Allow(TenantScoped), ErrUnauthenticated)
	require.NoError(t, none.Allow(Public), "a public route needs no credential")

	for _, owner := range []string{"", "a", "b"} {
		require.NoError(t, platform.Check(owner), "the platform sees %q", owner)
	}
	require.NoError(t, a.Check("a"))
	require.ErrorIs(t, a.Check("b"), ErrNotFound, "another tenant's resource does not exist for a")
	require.ErrorIs(t, a.Check(""), ErrNotFound, "nor does the platform's own")
	require.ErrorIs(t, none.Check(""), ErrNotFound)

	require.Equal(t, "b", platform.Owner("b"))
	require.Equal(t, "", platform.Owner(""))
	require.Equal(t, "a", a.Owner("b"), "a tenant creates its own, whatever it asks")

	for _, c := range []struct {
		sc        Scope
		requested string
		want      store.TenantFilter
		err       error
	}{
		{platform, "", store.AllTenants, nil},
		{platform, "b", store.OfTenant("b"), nil},
		{a, "", store.OfTenant("a"), nil},
		{a, "a", store.OfTenant("a"), nil},
		{a, "b", store.TenantFilter{}, ErrNotFound},
		{none, "", store.TenantFilter{}, ErrUnauthenticated},
	} {
		got, err := c.sc.Filter(c.requested)
		require.ErrorIs(t, err, c.err)
		require.Equal(t, c.want, got)
	}

	ctx := NewContext(context.Background(), a)
	require.Equal(t, a, FromContext(ctx))
	require.Equal(t, Scope{}, FromContext(context.Background()), "no scope in the context allows nothing")
}

// tokenTable is a store of token hashes with expiries.
type tokenTable struct {
	tenants map[string]string
	expires map[string]time.Time
	err     error
}

func (f *tokenTable) TenantOfToken(_ context.Context, hash string, now time.Time) (string, error) {
	if f.err != nil {
		return "", f.err
	}
	tenant, ok := f.tenants[hash]
	if !ok || !now.Before(f.expires[hash]) {
		return "", store.ErrNotFound
	}
	return tenant, nil
}

func TestAuthenticate(t *testing.T) {
	ctx := context.Background()
	token, err := NewToken()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(token, TokenPrefix))
	other, err := NewToken()
	require.NoError(t, err)
	require.NotEqual(t, token, other)

	now := time.Now()
	tokens := &tokenTable{
		tenants: map[string]string{HashToken(token): "acme"},
		expires: map[string]time.Time{HashToken(token): now.Add(time.Hour)},
	}
	a, err := NewAuthenticator([]string{"hk_platform"}, tokens)
	require.NoError(t, err)
	a.now = func() time.Time { return now }

	sc, err := a.Authenticate(ctx, "hk_platform")
	require.NoError(t, err)
	require.True(t, sc.IsPlatform())
	require.NotContains(t, sc.Actor(), "hk_platform", "the actor never shows the key")

	sc, err = a.Authenticate(ctx, token)
	require.NoError(t, err)
	require.False(t, sc.IsPlatform())
	require.Equal(t, "acme", sc.TenantID())
	require.NotContains(t, sc.Actor(), token)

	for name, cred := range map[string]string{"empty": "", "wrong key": "hk_other", "unknown token": other, "key prefix": "hk_platfor"} {
		_, err := a.Authenticate(ctx, cred)
		require.ErrorIs(t, err, ErrUnauthenticated, name)
	}
	a.now = func() time.Time { return now.Add(time.Hour) }
	_, err = a.Authenticate(ctx, token)
	require.ErrorIs(t, err, ErrUnauthenticated, "an expired token")

	tokens.err = errors.New("database down")
	_, err = a.Authenticate(ctx, token)
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrUnauthenticated, "a store failure is not a bad credential")

	_, err = NewAuthenticator([]string{TokenPrefix + "x"}, tokens)
	require.Error(t, err, "an API key cannot look like a tenant token")
	_, err = NewAuthenticator([]string{""}, tokens)
	require.Error(t, err)
	_, err = NewAuthenticator(nil, tokens)
	require.Error(t, err)
}
