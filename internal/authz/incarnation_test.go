package authz

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// tenantTable is a store of tenants by ID, with no endpoints.
type tenantTable map[string]*store.Tenant

func (tt tenantTable) GetEndpoint(context.Context, string) (*store.Endpoint, error) {
	return nil, store.ErrNotFound
}

func (tt tenantTable) GetTenant(_ context.Context, id string) (*store.Tenant, error) {
	if t, ok := tt[id]; ok {
		return t, nil
	}
	return nil, store.ErrNotFound
}

// A tenant scope sees only what carries its tenant's current
// incarnation: not what a deleted tenant of the same ID left behind, and
// a list's filter and visibility clause select the incarnation too.
func TestResourcesCheckTheIncarnation(t *testing.T) {
	res := &Resources{Store: tenantTable{"acme": {ID: "acme", Incarnation: "new"}, "legacy": {ID: "legacy"}}}
	acme := NewContext(context.Background(), ForTenant("acme", "tok"))
	legacy := NewContext(context.Background(), ForTenant("legacy", "tok"))
	platform := NewContext(context.Background(), Platform("key"))

	require.NoError(t, res.Owned(acme, "acme", "new"))
	require.ErrorIs(t, res.Owned(acme, "acme", "old"), ErrNotFound, "the deleted tenant's record")
	require.ErrorIs(t, res.Owned(acme, "acme", ""), ErrNotFound, "a record from before incarnations is not the new tenant's")
	require.ErrorIs(t, res.Owned(acme, "other", "new"), ErrNotFound)
	require.NoError(t, res.Owned(legacy, "legacy", ""), "a tenant from before incarnations keeps its records")
	require.NoError(t, res.Owned(platform, "acme", "old"), "the platform sees everything")
	gone := NewContext(context.Background(), ForTenant("gone", "tok"))
	require.ErrorIs(t, res.Owned(gone, "gone", ""), ErrNotFound, "a deleted tenant's scope sees nothing")

	f, err := res.Filter(acme, "")
	require.NoError(t, err)
	require.Equal(t, store.TenantFilter{ID: "acme", Incarnation: "new"}, f)
	f, err = res.Filter(platform, "acme")
	require.NoError(t, err)
	require.Equal(t, store.TenantFilter{ID: "acme", Incarnation: "new"}, f)
	f, err = res.Filter(platform, "")
	require.NoError(t, err)
	require.Equal(t, store.AllTenants, f)

	for _, c := range []struct {
		f    store.TenantFilter
		want string
	}{
		{store.AllTenants, ""},
		{store.OfTenant(""), "HookdTenantId IS NULL"},
		{store.TenantFilter{ID: "acme", Incarnation: "new"}, "HookdTenantId = 'acme' AND HookdTenantIncarnation = 'new'"},
		{store.OfTenant("legacy"), "HookdTenantId = 'legacy' AND HookdTenantIncarnation IS NULL"},
	} {
		got, err := VisibilityClause(c.f)
		require.NoError(t, err)
		require.Equal(t, c.want, got.String())
	}
	_, err = VisibilityClause(store.TenantFilter{ID: "acme", Incarnation: "x' OR 'a'='a"})
	require.Error(t, err, "an incarnation cannot escape its quotes")
}
