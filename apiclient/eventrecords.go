package apiclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/hookd/hookd/apiclient/internal/wire"
)

// EventRecord is an accepted event as hookd recorded it: the payload (only
// from GetEvent) and the deliveries it fanned out to.
type EventRecord struct {
	Raw
	EventID    string          `json:"event_id"`
	TenantID   string          `json:"tenant_id,omitempty"`
	Type       string          `json:"type"`
	Payload    json.RawMessage `json:"payload,omitempty"`
	AcceptedAt time.Time       `json:"accepted_at"`
	Deliveries []EventDelivery `json:"deliveries"`
	// ExpungedAt, ExpungedBy and ExpungeReason say when, by whom and why
	// the event was expunged (nil, "" while it is not); TemporalCopy what
	// is left of its body in Temporal: "unreadable", or
	// "namespace_key_only" for an event recorded without a data key.
	ExpungedAt    *time.Time `json:"expunged_at,omitempty"`
	ExpungedBy    string     `json:"expunged_by,omitempty"`
	ExpungeReason string     `json:"expunge_reason,omitempty"`
	TemporalCopy  string     `json:"temporal_copy,omitempty"`
}

// EventDelivery is one delivery of a recorded event. Status (only from
// GetEvent) is pending, delivered, failed, exhausted, expunged, or not_started for a
// start lost to a crash, which posting the event again completes.
type EventDelivery struct {
	ID         string `json:"id"`
	EndpointID string `json:"endpoint_id"`
	Status     string `json:"status,omitempty"`
}

// EventPage is one page of recorded events, newest first.
type EventPage struct {
	Raw
	Data       []EventRecord `json:"data"`
	NextCursor string        `json:"next_cursor,omitempty"`
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
