package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
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

// EndpointInput is the body of create and update. Nil fields are left as
// they are (update) or take the API's defaults (create).
type EndpointInput struct {
	URL           *string            `json:"url,omitempty"`
	Description   *string            `json:"description,omitempty"`
	EventTypes    *[]string          `json:"event_types,omitempty"`
	Enabled       *bool              `json:"enabled,omitempty"`
	RetrySchedule *[]string          `json:"retry_schedule,omitempty"`
	Timeout       *string            `json:"timeout,omitempty"`
	Metadata      *map[string]string `json:"metadata,omitempty"`
	// Filter is the content filter, a CEL expression over the event's
	// type, tenant_id, event_id and payload; "" removes it.
	Filter *string `json:"filter,omitempty"`
	// TenantID, on create only, names the tenant the endpoint belongs to
	// (ignored with a tenant token: its own tenant).
	TenantID *string `json:"tenant_id,omitempty"`
	// Headers replaces the custom headers (an empty map removes them).
	Headers *map[string]string `json:"headers,omitempty"`
	// Auth replaces the authentication; RemoveAuth removes it.
	Auth       *EndpointAuth `json:"auth,omitempty"`
	RemoveAuth bool          `json:"-"`
	// TLS replaces the client certificate, key and CA; RemoveTLS removes
	// them.
	TLS       *EndpointTLS `json:"tls,omitempty"`
	RemoveTLS bool         `json:"-"`
	// PropagateTrace turns sending the W3C trace context on or off.
	PropagateTrace *bool `json:"propagate_trace,omitempty"`
	// Signing replaces the signing profile; a create without it gets the
	// deployment's default.
	Signing *SigningProfile `json:"signing,omitempty"`
	// RateLimit sets the rate limit; RemoveRateLimit removes it.
	RateLimit       *RateLimit `json:"rate_limit,omitempty"`
	RemoveRateLimit bool       `json:"-"`
}

// create is the body of a create: the document's EndpointCreate.
func (in EndpointInput) create() wire.EndpointCreate {
	return wire.EndpointCreate{
		URL: wire.Deref(in.URL), Description: in.Description, EventTypes: in.EventTypes, Enabled: in.Enabled,
		RetrySchedule: in.RetrySchedule, Timeout: in.Timeout, Metadata: (*wire.Metadata)(in.Metadata), TenantID: in.TenantID,
		Filter: in.Filter, Headers: (*wire.EndpointHeaders)(in.Headers), Auth: in.Auth, TLS: in.TLS,
		PropagateTrace: in.PropagateTrace,
		Signing:        in.Signing,
		RateLimit:      in.RateLimit,
	}
}

// patch is the body of an update: the document's EndpointPatch, which
// has no tenant_id (an endpoint's tenant never changes), with null for
// each field RemoveAuth, RemoveRateLimit or RemoveTLS removes.
func (in EndpointInput) patch() endpointPatch {
	return endpointPatch{EndpointPatch: wire.EndpointPatch{
		URL: in.URL, Description: in.Description, EventTypes: in.EventTypes, Enabled: in.Enabled,
		RetrySchedule: in.RetrySchedule, Timeout: in.Timeout, Metadata: (*wire.Metadata)(in.Metadata),
		Filter: in.Filter, Headers: (*wire.EndpointHeaders)(in.Headers), Auth: in.Auth, TLS: in.TLS,
		PropagateTrace: in.PropagateTrace,
		Signing:        in.Signing,
		RateLimit:      in.RateLimit,
	}, removeAuth: in.RemoveAuth && in.Auth == nil, removeRateLimit: in.RemoveRateLimit && in.RateLimit == nil,
		removeTLS: in.RemoveTLS && in.TLS == nil}
}

// endpointPatch is an update's body; removeAuth sends "auth": null,
// removeRateLimit "rate_limit": null and removeTLS "tls": null, which the
// generated type (fields omitted when nil) cannot say.
type endpointPatch struct {
	wire.EndpointPatch
	removeAuth, removeRateLimit, removeTLS bool
}

// MarshalJSON encodes the patch, with the nulls it asks for.
func (p endpointPatch) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(p.EndpointPatch)
	if err != nil {
		return b, err
	}
	for _, null := range []struct {
		set  bool
		name string
	}{{p.removeAuth, "auth"}, {p.removeRateLimit, "rate_limit"}, {p.removeTLS, "tls"}} {
		if !null.set {
			continue
		}
		field := []byte(`"` + null.name + `":null`)
		if bytes.Equal(b, []byte("{}")) {
			b = append(append([]byte("{"), field...), '}')
		} else {
			b = append(append(append([]byte("{"), field...), ','), b[1:]...)
		}
	}
	return b, nil
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
