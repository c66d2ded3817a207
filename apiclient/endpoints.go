package apiclient

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/hookd/hookd/apiclient/wire"
)

// Endpoint is a receiver of webhooks. Secret is set only in the answers to
// create (and shown only then); Warnings, in the answers to create and
// update, name the event_types entries that match no type of the
// event-type catalog.
type Endpoint struct {
	Raw
	wire.Endpoint
}

// RateLimit is an endpoint's rate limit: at most Burst attempts at once
// (nil on input: 1) and PerSecond a second on average.
type RateLimit = wire.RateLimit

// EndpointInput is what a create or an update sets, sent as the
// document's EndpointCreate or EndpointPatch (wire). Nil fields are left
// as they are (update) or take the API's defaults (create).
type EndpointInput struct {
	URL           *string
	Description   *string
	EventTypes    *[]string
	Enabled       *bool
	RetrySchedule *[]string
	Timeout       *string
	Metadata      *map[string]string
	// Filter is the content filter, a CEL expression over the event's
	// type, tenant_id, event_id and payload; "" removes it.
	Filter *string
	// TenantID, on create only, names the tenant the endpoint belongs to
	// (ignored with a tenant token: its own tenant).
	TenantID *string
	// Headers replaces the custom headers (an empty map removes them).
	Headers *map[string]string
	// Auth replaces the authentication; RemoveAuth removes it.
	Auth       *EndpointAuth
	RemoveAuth bool
	// TLS replaces the client certificate, key and CA; RemoveTLS removes
	// them.
	TLS       *EndpointTLS
	RemoveTLS bool
	// PropagateTrace turns sending the W3C trace context on or off.
	PropagateTrace *bool
	// Signing replaces the signing profile; a create without it gets the
	// deployment's default.
	Signing *SigningProfile
	// RateLimit sets the rate limit; RemoveRateLimit removes it.
	RateLimit       *RateLimit
	RemoveRateLimit bool
}

// create is the body of a create: the document's EndpointCreate. The
// Remove fields have nothing to remove.
func (in EndpointInput) create() wire.EndpointCreate {
	in.RemoveAuth, in.RemoveTLS, in.RemoveRateLimit = false, false, false
	p := in.patch()
	return wire.EndpointCreate{
		URL: wire.Deref(in.URL), TenantID: in.TenantID, Description: p.Description, EventTypes: p.EventTypes,
		Enabled: p.Enabled, RetrySchedule: p.RetrySchedule, Timeout: p.Timeout, Metadata: p.Metadata,
		Filter: p.Filter, Headers: p.Headers, Auth: p.Auth, TLS: p.TLS, PropagateTrace: p.PropagateTrace,
		Signing: p.Signing, RateLimit: p.RateLimit,
	}
}

// patch is the body of an update: the document's EndpointPatch, which
// has no tenant_id (an endpoint's tenant never changes), with null for
// each field RemoveAuth, RemoveRateLimit or RemoveTLS removes.
func (in EndpointInput) patch() wire.EndpointPatch {
	return wire.EndpointPatch{
		URL: in.URL, Description: in.Description, EventTypes: in.EventTypes, Enabled: in.Enabled,
		RetrySchedule: in.RetrySchedule, Timeout: in.Timeout, Metadata: (*wire.Metadata)(in.Metadata),
		Filter: patchOf(in.Filter, false), Headers: (*wire.EndpointHeaders)(in.Headers),
		Auth: patchOf(in.Auth, in.RemoveAuth), TLS: patchOf(in.TLS, in.RemoveTLS),
		PropagateTrace: in.PropagateTrace,
		Signing:        patchOf(in.Signing, false),
		RateLimit:      patchOf(in.RateLimit, in.RemoveRateLimit),
	}
}

// patchOf is the patch field setting *v, or null when v is nil and
// remove is true, or left out.
func patchOf[T any](v *T, remove bool) wire.Patch[T] {
	switch {
	case v != nil:
		return wire.Set(*v)
	case remove:
		return wire.Null[T]()
	default:
		return wire.Patch[T]{}
	}
}

// EndpointPage is one page of endpoints.
type EndpointPage struct {
	Raw
	wire.EndpointPage
}

// RotatedSecret is the answer to a secret rotation: the new secret, shown
// only here, and when the previous one stops being used.
type RotatedSecret struct {
	Raw
	wire.RotatedSecret
}

func endpointPath(id string) string { return "/v1/endpoints/" + url.PathEscape(id) }

// CreateEndpoint creates an endpoint; the answer carries its signing secret.
func (c *Client) CreateEndpoint(ctx context.Context, in EndpointInput) (*Endpoint, error) {
	return call[Endpoint](ctx, c, http.MethodPost, "/v1/endpoints", nil, in.create())
}

// ListEndpoints returns one page of endpoints.
func (c *Client) ListEndpoints(ctx context.Context, p Page) (*EndpointPage, error) {
	return call[EndpointPage](ctx, c, http.MethodGet, "/v1/endpoints", p.values(), nil)
}

// GetEndpoint returns one endpoint.
func (c *Client) GetEndpoint(ctx context.Context, id string) (*Endpoint, error) {
	return call[Endpoint](ctx, c, http.MethodGet, endpointPath(id), nil, nil)
}

// UpdateEndpoint changes the fields of in that are set.
func (c *Client) UpdateEndpoint(ctx context.Context, id string, in EndpointInput) (*Endpoint, error) {
	return call[Endpoint](ctx, c, http.MethodPatch, endpointPath(id), nil, in.patch())
}

// DeleteEndpoint deletes an endpoint.
func (c *Client) DeleteEndpoint(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodDelete, endpointPath(id), nil, nil)
	return err
}

// RotateSecret gives an endpoint a new signing secret; deliveries are
// signed with both secrets until overlap has passed.
func (c *Client) RotateSecret(ctx context.Context, id string, overlap time.Duration) (*RotatedSecret, error) {
	keep := overlap.String()
	return call[RotatedSecret](ctx, c, http.MethodPost, endpointPath(id)+"/secret/rotate", nil, wire.SecretRotate{Overlap: &keep})
}
