package apiclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/hookd/hookd/apiclient/wire"
)

// EventType is a type of the platform's event-type catalog: what its
// events carry, the JSON Schema their payloads match (nil for none) and
// examples.
type EventType struct {
	Raw
	wire.CatalogType
}

// EventTypeInput is the body of an event-type put: it replaces every
// field. Schema nil is none.
type EventTypeInput struct {
	Description string            `json:"description,omitempty"`
	Schema      json.RawMessage   `json:"schema,omitempty"`
	Examples    []json.RawMessage `json:"examples,omitempty"`
	Deprecated  bool              `json:"deprecated,omitempty"`
}

// EventTypePage is one page of the catalog, in name order.
type EventTypePage struct {
	Raw
	wire.EventTypePage
}

// Warning is something a request did that the API allowed but that is
// likely a mistake: an endpoint's event_types entry matching no type of
// the catalog.
type Warning = wire.Warning

// SchemaProblem is one way a payload fails its type's schema: a JSON
// Pointer into it ("" for the whole) and why.
type SchemaProblem = wire.SchemaProblem

func eventTypePath(name string) string { return "/v1/event-types/" + url.PathEscape(name) }

// PutEventType creates the type or replaces it (platform API key only),
// and says whether it created it.
func (c *Client) PutEventType(ctx context.Context, name string, in EventTypeInput) (*EventType, bool, error) {
	t, status, err := callStatus[EventType](ctx, c, http.MethodPut, eventTypePath(name), nil, in)
	return t, status == http.StatusCreated, err
}

// GetEventType returns one type of the catalog.
func (c *Client) GetEventType(ctx context.Context, name string) (*EventType, error) {
	return call[EventType](ctx, c, http.MethodGet, eventTypePath(name), nil, nil)
}

// ListEventTypes returns one page of the catalog.
func (c *Client) ListEventTypes(ctx context.Context, p Page) (*EventTypePage, error) {
	return call[EventTypePage](ctx, c, http.MethodGet, "/v1/event-types", p.values(), nil)
}

// DeleteEventType removes a type from the catalog (platform API key
// only).
func (c *Client) DeleteEventType(ctx context.Context, name string) error {
	_, err := c.do(ctx, http.MethodDelete, eventTypePath(name), nil, nil)
	return err
}
