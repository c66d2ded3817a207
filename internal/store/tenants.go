package store

import (
	"context"
	"errors"
	"regexp"
	"time"
)

// ErrTenantNotFound is returned when an endpoint names a tenant that does
// not exist.
var ErrTenantNotFound = errors.New("tenant not found")

// tenantIDPattern is what a tenant ID may be: the platform's own customer
// ID, so it allows the characters platforms use in theirs.
var tenantIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// ValidTenantID reports whether id may name a tenant: 1 to 128 characters
// of A-Z a-z 0-9 . _ : -.
func ValidTenantID(id string) bool { return tenantIDPattern.MatchString(id) }

// Tenant is a customer of the platform hookd serves. It owns endpoints;
// events posted with its ID reach only those.
type Tenant struct {
	// ID is the platform's own ID for the customer (ValidTenantID).
	ID        string
	Name      string
	Metadata  map[string]string
	CreatedAt time.Time
	UpdatedAt time.Time
	// TokensRevokedAt is when the tenant's tokens were last revoked, zero
	// if never. Anything the tenant was granted before it (a portal
	// session) is void.
	TokensRevokedAt time.Time
	// Incarnation tells this tenant apart from an earlier one deleted under
	// the same ID: random, chosen by the store when it creates the tenant,
	// and stamped on every endpoint, event record and delivery of it, so
	// what a deleted tenant left behind never reaches the ID's next owner.
	// It is "" for tenants created before incarnations (their deliveries
	// carry none).
	Incarnation string
}

// TenantToken is a tenant-scoped API token as stored: only its hash.
type TenantToken struct {
	// Hash identifies the token; the token itself is never stored.
	Hash      string
	TenantID  string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// TenantFilter selects resources by the tenant they belong to.
type TenantFilter struct {
	// All selects every resource, whatever its tenant; when false, ID
	// selects that tenant's resources ("" selects those without a tenant).
	All bool
	ID  string
	// Incarnation, with ID set, narrows event records and deliveries to
	// that incarnation of the tenant (Tenant.Incarnation; "" is the
	// incarnation of tenants from before incarnations). Endpoints ignore
	// it: a tenant's deletion deletes them.
	Incarnation string
}

// AllTenants selects every resource.
var AllTenants = TenantFilter{All: true}

// OfTenant selects the resources of one tenant ("" for those without one).
func OfTenant(id string) TenantFilter { return TenantFilter{ID: id} }

// Tenants keeps tenants and their tokens.
type Tenants interface {
	// PutTenant creates the tenant or replaces its name and metadata, and
	// returns it as stored and whether it was created. CreatedAt and
	// UpdatedAt are set by the caller; an update keeps CreatedAt and the
	// Incarnation, which creation chooses.
	PutTenant(ctx context.Context, t *Tenant) (*Tenant, bool, error)
	// GetTenant returns the tenant or ErrNotFound.
	GetTenant(ctx context.Context, id string) (*Tenant, error)
	// ListTenants returns a page ordered by creation and the cursor of the
	// next page ("" when there is none).
	ListTenants(ctx context.Context, p Page) ([]*Tenant, string, error)
	// DeleteTenant removes the tenant, its endpoints (with their secrets
	// and circuits) and its tokens, or returns ErrNotFound. Its event
	// records stay for its expunge job (package expunge), which ends with
	// DeleteTenantEvents.
	DeleteTenant(ctx context.Context, id string) error
	// DeleteTenantEvents deletes the event records of a deleted tenant's
	// incarnation and says how many.
	DeleteTenantEvents(ctx context.Context, tenantID, incarnation string) (int64, error)
	// AddTenantToken stores a token's hash, or returns ErrNotFound when the
	// tenant does not exist. Tokens of the tenant expired by tok.CreatedAt
	// are deleted.
	AddTenantToken(ctx context.Context, tok TenantToken) error
	// TenantOfToken returns the tenant of the token with this hash if it
	// has not expired at now, or ErrNotFound.
	TenantOfToken(ctx context.Context, hash string, now time.Time) (string, error)
	// RevokeTenantTokens deletes every token of the tenant, records at as
	// its TokensRevokedAt and returns how many tokens it deleted, or
	// ErrNotFound.
	RevokeTenantTokens(ctx context.Context, id string, at time.Time) (int64, error)
}
