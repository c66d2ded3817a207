package authz

import (
	"context"
	"errors"
	"fmt"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// Store is what Resources reads: endpoints and tenants (store.Store).
type Store interface {
	GetEndpoint(ctx context.Context, id string) (*store.Endpoint, error)
	GetTenant(ctx context.Context, id string) (*store.Tenant, error)
}

// Resources looks resources up in the scope the context carries, so every
// surface (API, portal) applies the same rules: a resource outside the
// scope is ErrNotFound, exactly as one that does not exist.
type Resources struct {
	Store Store
}

// Endpoint returns the endpoint if it exists in the context's scope, else
// ErrNotFound.
func (r *Resources) Endpoint(ctx context.Context, id string) (*store.Endpoint, error) {
	ep, err := r.Store.GetEndpoint(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if err := FromContext(ctx).Check(ep.TenantID); err != nil {
		return nil, err
	}
	return ep, nil
}

// Filter is the tenant filter of a list that names tenant requested (""
// for none) in the context's scope: ErrNotFound when it names a tenant
// the scope cannot see or that does not exist.
func (r *Resources) Filter(ctx context.Context, requested string) (store.TenantFilter, error) {
	sc := FromContext(ctx)
	f, err := sc.Filter(requested)
	if err != nil || !sc.IsPlatform() || requested == "" {
		return f, err
	}
	switch ok, err := r.tenantExists(ctx, requested); {
	case err != nil:
		return store.TenantFilter{}, err
	case !ok:
		return store.TenantFilter{}, ErrNotFound
	}
	return f, nil
}

// Owner is the tenant a new endpoint belongs to when the request asks for
// requested: a tenant scope's own, whatever was asked; for the platform,
// the tenant requested, which must exist (store.ErrTenantNotFound).
func (r *Resources) Owner(ctx context.Context, requested string) (string, error) {
	sc := FromContext(ctx)
	if err := sc.Allow(TenantScoped); err != nil {
		return "", err
	}
	owner := sc.Owner(requested)
	if !sc.IsPlatform() || owner == "" {
		return owner, nil
	}
	switch ok, err := r.tenantExists(ctx, owner); {
	case err != nil:
		return "", err
	case !ok:
		return "", store.ErrTenantNotFound
	}
	return owner, nil
}

func (r *Resources) tenantExists(ctx context.Context, id string) (bool, error) {
	_, err := r.Store.GetTenant(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// VisibilityClause is the Temporal visibility condition that selects the
// deliveries and dead letters f selects by their HookdTenantId, "" when f
// selects all. Tenant IDs are store.ValidTenantID, so none can escape its
// quotes.
func VisibilityClause(f store.TenantFilter) (string, error) {
	switch {
	case f.All:
		return "", nil
	case f.ID == "":
		return delivery.AttrTenantID.GetName() + " IS NULL", nil
	case !store.ValidTenantID(f.ID):
		return "", fmt.Errorf("invalid tenant ID %q", f.ID)
	default:
		return fmt.Sprintf("%s = '%s'", delivery.AttrTenantID.GetName(), f.ID), nil
	}
}
