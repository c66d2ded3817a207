// Package authz decides what a caller of hookd may see and do. Every
// caller acts in a Scope: the platform (an API key: every tenant's
// resources and the platform's own) or one tenant (a tenant token, or a
// portal session: that tenant's resources only). The API's one middleware
// puts the caller's Scope into the request context; every route declares
// an Access the Scope must allow, and every resource a route reads or
// changes is checked against the Scope with Check (by the tenant that owns
// it) or filtered with Filter (lists). A resource of another tenant is
// reported as ErrNotFound, never ErrForbidden, so a tenant learns nothing
// about what others have.
//
// The consumer portal reuses the same rules without going through HTTP:
// it resolves its session to ForTenant(id, actor), puts it in the context
// with NewContext, and calls the same scoped operations the API calls.
package authz

import (
	"context"
	"errors"

	"github.com/hookd/hookd/internal/store"
)

// Errors a scope check returns; the API answers them with 401, 403 and
// 404.
var (
	// ErrUnauthenticated: no credential, or one that is unknown, expired
	// or revoked.
	ErrUnauthenticated = errors.New("missing, invalid, expired or revoked credential")
	// ErrForbidden: a platform-only operation asked for in a tenant scope.
	ErrForbidden = errors.New("this operation needs the platform's API key")
	// ErrNotFound: the resource does not exist in the caller's scope
	// (whether or not it exists in another).
	ErrNotFound = errors.New("not found")
)

// Scope is who a request acts for. The zero Scope allows nothing.
type Scope struct {
	platform bool
	tenant   string
	actor    string
	// denied are the capabilities the scope was issued without (Without).
	denied []Capability
}

// Platform is the scope of the platform's API keys: everything. actor
// names the caller in logs and redrive records (never the key itself).
func Platform(actor string) Scope { return Scope{platform: true, actor: actor} }

// ForTenant is the scope of one tenant: its endpoints, the deliveries and
// dead letters to them, and its events.
func ForTenant(tenantID, actor string) Scope { return Scope{tenant: tenantID, actor: actor} }

// IsPlatform reports whether s is the platform scope.
func (s Scope) IsPlatform() bool { return s.platform }

// TenantID is the tenant of a tenant scope, "" otherwise.
func (s Scope) TenantID() string { return s.tenant }

// Actor names the caller, for logs and audit records.
func (s Scope) Actor() string { return s.actor }

func (s Scope) valid() bool { return s.platform || s.tenant != "" }

// Access is what a route requires of the caller's scope.
type Access int

// Accesses a route may declare.
const (
	// PlatformOnly routes answer ErrForbidden to a tenant scope: tenants
	// and their tokens, event ingest, metrics.
	PlatformOnly Access = iota + 1
	// TenantScoped routes serve any scope and confine what they read and
	// change to it with Check and Filter.
	TenantScoped
	// Public routes serve anyone, without a credential: they show nothing
	// of the platform or of any tenant (the API's own description).
	Public
)

func (a Access) String() string {
	switch a {
	case PlatformOnly:
		return "platform"
	case TenantScoped:
		return "tenant"
	case Public:
		return "public"
	default:
		return "unclassified"
	}
}

// Allow returns nil when s may use a route that requires a:
// ErrUnauthenticated for the zero Scope (on any route but a public one),
// ErrForbidden for a tenant scope on a platform-only route or a route of
// unknown access.
func (s Scope) Allow(a Access) error {
	switch {
	case a == Public:
		return nil
	case !s.valid():
		return ErrUnauthenticated
	case s.platform:
		return nil
	case a == TenantScoped:
		return nil
	default:
		return ErrForbidden
	}
}

// Check returns nil when s may see a resource owned by tenantID ("" for
// the platform's own), else ErrNotFound.
func (s Scope) Check(tenantID string) error {
	if s.platform || (s.tenant != "" && s.tenant == tenantID) {
		return nil
	}
	return ErrNotFound
}

// Owner is the tenant a resource created in s belongs to when the request
// asks for requested: a tenant scope always creates its own, whatever was
// asked.
func (s Scope) Owner(requested string) string {
	if s.platform {
		return requested
	}
	return s.tenant
}

// Filter is the tenant filter of a list in s when the request names
// requested ("" when it names none): the platform lists everything or the
// tenant it names; a tenant lists its own, and naming another tenant is
// ErrNotFound.
func (s Scope) Filter(requested string) (store.TenantFilter, error) {
	switch {
	case !s.valid():
		return store.TenantFilter{}, ErrUnauthenticated
	case s.platform && requested == "":
		return store.AllTenants, nil
	case s.platform:
		return store.OfTenant(requested), nil
	case requested == "" || requested == s.tenant:
		return store.OfTenant(s.tenant), nil
	default:
		return store.TenantFilter{}, ErrNotFound
	}
}

type scopeKey struct{}

// NewContext returns ctx carrying s.
func NewContext(ctx context.Context, s Scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// FromContext returns the scope ctx carries; the zero Scope, which allows
// nothing, when it carries none.
func FromContext(ctx context.Context) Scope {
	s, _ := ctx.Value(scopeKey{}).(Scope)
	return s
}
