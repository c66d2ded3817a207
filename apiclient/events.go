package apiclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/hookd/hookd/apiclient/wire"
)

// Event is an event to deliver. An empty EventID has the API generate one;
// Payload must be a JSON object.
// TenantID sends the event to that tenant's endpoints only.
type Event struct {
	EventID  string
	Type     string
	Payload  json.RawMessage
	TenantID string
}

// EventResult is the answer to an accepted event: one delivery per
// subscribed endpoint. Duplicate says the event had been accepted before.
type EventResult struct {
	Raw
	wire.EventAccepted
}

// DeliveryRef names one delivery of an event.
type DeliveryRef = wire.EventDelivery

// Delivery is one event's delivery to one endpoint, with its timeline:
// every run's attempts, each redrive between the runs.
type Delivery struct {
	Raw
	wire.Delivery
}

// TimelineEntry is one entry of a delivery's timeline: an HTTP attempt
// (Kind "attempt") or the redrive that started run Run (Kind "redrive").
type TimelineEntry = wire.TimelineEntry

// Attempt is one HTTP attempt of a dead letter's timeline.
type Attempt = wire.Attempt

// Redrive records who redrove a delivery, why and when.
type Redrive = wire.Redrive

// SendEvent posts an event; it returns once every delivery is durably
// accepted.
func (c *Client) SendEvent(ctx context.Context, ev Event) (*EventResult, error) {
	body := wire.EventCreate{EventID: wire.Optional(ev.EventID), Type: ev.Type, Payload: ev.Payload, TenantID: wire.Optional(ev.TenantID)}
	return call[EventResult](ctx, c, http.MethodPost, "/v1/events", nil, body)
}

// GetDelivery returns a delivery's status and timeline.
func (c *Client) GetDelivery(ctx context.Context, id string) (*Delivery, error) {
	return call[Delivery](ctx, c, http.MethodGet, "/v1/deliveries/"+url.PathEscape(id), nil, nil)
}
