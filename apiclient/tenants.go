package apiclient

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/hookd/hookd/apiclient/wire"
)

// Tenant is a customer of the platform, keyed by the platform's own ID.
type Tenant struct {
	Raw
	wire.Tenant
}

// TenantInput is what a tenant put sets, sent as the document's
// TenantPut: it replaces the name and metadata.
type TenantInput struct {
	Name     string
	Metadata map[string]string
}

// TenantPage is one page of tenants.
type TenantPage struct {
	Raw
	wire.TenantPage
}

// TenantToken is a new tenant token, shown only in this answer.
type TenantToken struct {
	Raw
	wire.TenantToken
}

// RevokedTokens is the answer to a revocation: how many tokens it ended.
type RevokedTokens struct {
	Raw
	wire.RevokedTokens
}

// DeliveryFilter selects deliveries; zero fields match everything.
type DeliveryFilter struct {
	TenantID   string
	EndpointID string
	EventID    string
	Status     string // pending, delivered, failed or exhausted
}

func (f DeliveryFilter) values(v url.Values) url.Values {
	for k, s := range map[string]string{"tenant_id": f.TenantID, "endpoint_id": f.EndpointID, "event_id": f.EventID, "status": f.Status} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// DeliveryRow is a delivery as a list shows it. Status is the current
// (latest) run's; Attempts counts the attempts of every run, Runs the
// runs; LastStatus is the latest attempt's HTTP status (0: none, or no
// answer).
type DeliveryRow = wire.DeliveryRow

// DeliveryPage is one page of deliveries.
type DeliveryPage struct {
	Raw
	wire.DeliveryPage
}

func tenantPath(id string) string { return "/v1/tenants/" + url.PathEscape(id) }

// PutTenant creates the tenant or replaces its name and metadata, and
// says whether it created it.
func (c *Client) PutTenant(ctx context.Context, id string, in TenantInput) (*Tenant, bool, error) {
	body := wire.TenantPut{Name: &in.Name}
	if in.Metadata != nil {
		body.Metadata = (*wire.Metadata)(&in.Metadata)
	}
	t, status, err := callStatus[Tenant](ctx, c, http.MethodPut, tenantPath(id), nil, body)
	return t, status == http.StatusCreated, err
}

// GetTenant returns one tenant.
func (c *Client) GetTenant(ctx context.Context, id string) (*Tenant, error) {
	return call[Tenant](ctx, c, http.MethodGet, tenantPath(id), nil, nil)
}

// ListTenants returns one page of tenants.
func (c *Client) ListTenants(ctx context.Context, p Page) (*TenantPage, error) {
	return call[TenantPage](ctx, c, http.MethodGet, "/v1/tenants", p.values(), nil)
}

// DeleteTenant deletes a tenant, its endpoints and its tokens.
func (c *Client) DeleteTenant(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodDelete, tenantPath(id), nil, nil)
	return err
}

// CreateTenantToken issues a token that acts for the tenant until
// expiresIn has passed (zero: the API's default, 24h).
func (c *Client) CreateTenantToken(ctx context.Context, id string, expiresIn time.Duration) (*TenantToken, error) {
	var body wire.TenantTokenCreate
	if expiresIn > 0 {
		d := expiresIn.String()
		body.ExpiresIn = &d
	}
	return call[TenantToken](ctx, c, http.MethodPost, tenantPath(id)+"/tokens", nil, body)
}

// RevokeTenantTokens revokes every token of the tenant.
func (c *Client) RevokeTenantTokens(ctx context.Context, id string) (*RevokedTokens, error) {
	return call[RevokedTokens](ctx, c, http.MethodDelete, tenantPath(id)+"/tokens", nil, nil)
}

// ListTenantEndpoints returns one page of a tenant's endpoints.
func (c *Client) ListTenantEndpoints(ctx context.Context, tenantID string, p Page) (*EndpointPage, error) {
	v := p.values()
	v.Set("tenant_id", tenantID)
	return call[EndpointPage](ctx, c, http.MethodGet, "/v1/endpoints", v, nil)
}

// ListDeliveries returns one page of the deliveries f matches.
func (c *Client) ListDeliveries(ctx context.Context, f DeliveryFilter, p Page) (*DeliveryPage, error) {
	return call[DeliveryPage](ctx, c, http.MethodGet, "/v1/deliveries", f.values(p.values()), nil)
}

// TenantDeadLetterSummary counts one tenant's waiting dead letters.
func (c *Client) TenantDeadLetterSummary(ctx context.Context, tenantID string) (*DeadLetterSummary, error) {
	return call[DeadLetterSummary](ctx, c, http.MethodGet, "/v1/dead-letters/summary", url.Values{"tenant_id": {tenantID}}, nil)
}
