package apiclient

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/hookd/hookd/apiclient/wire"
)

// EventRecord is an accepted event as hookd recorded it: the payload (only
// from GetEvent) and the deliveries it fanned out to; for an expunged
// event, when, by whom and why, and what is left of its body in Temporal.
type EventRecord struct {
	Raw
	wire.EventRecord
}

// EventDelivery is one delivery of a recorded event. Status (only from
// GetEvent) is pending, delivered, failed, exhausted, expunged, or
// not_started for a start lost to a crash, which posting the event again
// completes.
type EventDelivery = wire.EventRecordDelivery

// EventPage is one page of recorded events, newest first.
type EventPage struct {
	Raw
	wire.EventPage
}

// EventFilter selects recorded events; zero fields select everything.
type EventFilter struct {
	// Type is an exact type, a prefix wildcard such as "order.*", or "*".
	Type       string
	EndpointID string
	TenantID   string
	// Since and Until bound the acceptance time, both inclusive.
	Since, Until time.Time
}

func (f EventFilter) values(v url.Values) url.Values {
	for key, val := range map[string]string{"type": f.Type, "endpoint_id": f.EndpointID, "tenant_id": f.TenantID} {
		if val != "" {
			v.Set(key, val)
		}
	}
	for key, t := range map[string]time.Time{"since": f.Since, "until": f.Until} {
		if !t.IsZero() {
			v.Set(key, t.UTC().Format(time.RFC3339Nano))
		}
	}
	return v
}

// ExpungeEvent expunges a recorded event for reason: its payload and data
// key are destroyed, its deliveries not yet delivered end expunged and
// its dead letters are removed. It returns the expunged record.
func (c *Client) ExpungeEvent(ctx context.Context, id, reason string) (*EventRecord, error) {
	return call[EventRecord](ctx, c, http.MethodPost, "/v1/events/"+url.PathEscape(id)+"/expunge", nil, wire.ExpungeRequest{Reason: reason})
}

// GetEvent returns a recorded event with its payload and its deliveries'
// status.
func (c *Client) GetEvent(ctx context.Context, id string) (*EventRecord, error) {
	return call[EventRecord](ctx, c, http.MethodGet, "/v1/events/"+url.PathEscape(id), nil, nil)
}

// ListEvents returns one page of the recorded events f selects.
func (c *Client) ListEvents(ctx context.Context, f EventFilter, p Page) (*EventPage, error) {
	return call[EventPage](ctx, c, http.MethodGet, "/v1/events", f.values(p.values()), nil)
}
