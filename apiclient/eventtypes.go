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

// EventTypeInput is what an event-type put sets: it replaces every
// field. Schema nil is none.
type EventTypeInput struct {
	Description string
	Schema      json.RawMessage
	Examples    []json.RawMessage
	Deprecated  bool
}

// body is the put's body: the document's EventTypePut.
func (in EventTypeInput) body() wire.EventTypePut {
	out := wire.EventTypePut{Description: wire.Optional(in.Description), Deprecated: wire.Optional(in.Deprecated)}
	if in.Schema != nil {
		out.Schema = &in.Schema
	}
	if len(in.Examples) > 0 {
		out.Examples = &in.Examples
	}
	return out
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
	t, status, err := callStatus[EventType](ctx, c, http.MethodPut, eventTypePath(name), nil, in.body())
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
