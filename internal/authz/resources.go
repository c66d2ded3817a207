package authz

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/visibility"
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
//
// A filter naming a tenant carries its current incarnation, so it selects
// none of the event records and deliveries an earlier tenant deleted
// under the same ID left behind.
func (r *Resources) Filter(ctx context.Context, requested string) (store.TenantFilter, error) {
	sc := FromContext(ctx)
	f, err := sc.Filter(requested)
	if err != nil || f.All || f.ID == "" {
		return f, err
	}
	switch t, err := r.tenant(ctx, f.ID); {
	case err != nil:
		return store.TenantFilter{}, err
	case t == nil:
		return store.TenantFilter{}, ErrNotFound
	default:
		f.Incarnation = t.Incarnation
	}
	return f, nil
}

// Owned returns nil when the context's scope may see an event record,
// delivery or dead letter stamped with tenantID and incarnation ("" and ""
// for the platform's own), else ErrNotFound: a tenant scope sees only
// those of its current incarnation, never what a deleted tenant of the
// same ID left behind.
func (r *Resources) Owned(ctx context.Context, tenantID, incarnation string) error {
	sc := FromContext(ctx)
	if err := sc.Check(tenantID); err != nil || sc.IsPlatform() {
		return err
	}
	switch t, err := r.tenant(ctx, tenantID); {
	case err != nil:
		return err
	case t == nil || t.Incarnation != incarnation:
		return ErrNotFound
	}
	return nil
}

// tenant returns the tenant, nil if it does not exist.
func (r *Resources) tenant(ctx context.Context, id string) (*store.Tenant, error) {
	t, err := r.Store.GetTenant(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return t, err
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
	t, err := r.tenant(ctx, id)
	return t != nil, err
}

// VisibilityClause is the Temporal visibility condition that selects the
// deliveries and dead letters f selects by their HookdTenantId and
// HookdTenantIncarnation, the zero Query when f selects all. A tenant ID
// that is not store.ValidTenantID, or an incarnation that is not
// alphanumeric, is an error.
func VisibilityClause(f store.TenantFilter) (visibility.Query, error) {
	switch {
	case f.All:
		return visibility.Query{}, nil
	case f.ID == "":
		return visibility.Unset(delivery.AttrTenantID), nil
	case !store.ValidTenantID(f.ID):
		return visibility.Query{}, fmt.Errorf("invalid tenant ID %q", f.ID)
	case !incarnationPattern.MatchString(f.Incarnation):
		return visibility.Query{}, fmt.Errorf("invalid tenant incarnation %q", f.Incarnation)
	case f.Incarnation == "":
		return visibility.And(visibility.Is(delivery.AttrTenantID, f.ID), visibility.Unset(delivery.AttrTenantIncarnation)), nil
	default:
		return visibility.And(visibility.Is(delivery.AttrTenantID, f.ID), visibility.Is(delivery.AttrTenantIncarnation, f.Incarnation)), nil
	}
}

// incarnationPattern is what a tenant incarnation may be ("" for tenants
// from before incarnations).
var incarnationPattern = regexp.MustCompile(`^[A-Za-z0-9]{0,64}$`)
