package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// Event is an event to deliver. An empty EventID has the API generate one;
// Payload must be a JSON object.
type Event struct {
	EventID string          `json:"event_id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	// TenantID sends the event to that tenant's endpoints only.
	TenantID string `json:"tenant_id,omitempty"`
}

// EventResult is the answer to an accepted event: one delivery per
// subscribed endpoint. Duplicate says the event had been accepted before.
type EventResult struct {
	Raw
	EventID    string        `json:"event_id"`
	Deliveries []DeliveryRef `json:"deliveries"`
	Duplicate  bool          `json:"duplicate"`
}

// DeliveryRef names one delivery of an event.
type DeliveryRef struct {
	ID         string `json:"id"`
	EndpointID string `json:"endpoint_id"`
}

// Delivery is one event's delivery to one endpoint, with its timeline.
type Delivery struct {
	Raw
	ID            string     `json:"id"`
	EventID       string     `json:"event_id"`
	EventType     string     `json:"event_type"`
	EndpointID    string     `json:"endpoint_id"`
	TenantID      string     `json:"tenant_id,omitempty"`
	Status        string     `json:"status"`   // the current run's: pending, delivered, failed, exhausted or expunged
	Attempts      int        `json:"attempts"` // of every run
	Runs          int        `json:"runs"`     // the first, then one per redrive
	LastStatus    int        `json:"last_status,omitempty"`
	LastError     string     `json:"last_error,omitempty"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
	WaitReason    string     `json:"wait_reason,omitempty"`
	CreatedAt     time.Time  `json:"created_at"` // when the first run started
	// Timeline holds every run's attempts, each redrive between the runs.
	Timeline []Attempt `json:"timeline"`
	Redrive  *Redrive  `json:"redrive,omitempty"` // who started the current run
	// Payload is the event's payload, as every attempt sends it;
	// PayloadExpunged says there is none: the event was expunged.
	Payload         json.RawMessage `json:"payload,omitempty"`
	PayloadExpunged bool            `json:"payload_expunged,omitempty"`
}

// Attempt is one HTTP attempt of a delivery; in a delivery's timeline,
// Kind "redrive" marks instead the redrive that started run Run.
type Attempt struct {
	Kind          string     `json:"kind,omitempty"` // attempt or redrive
	Run           int        `json:"run,omitempty"`
	Redrive       *Redrive   `json:"redrive,omitempty"`
	Number        int        `json:"number"`
	Start         time.Time  `json:"start"`
	DurationMS    float64    `json:"duration_ms"`
	Status        int        `json:"status,omitempty"` // 0: no response
	ErrorClass    string     `json:"error_class,omitempty"`
	Error         string     `json:"error,omitempty"`
	Response      string     `json:"response,omitempty"`
	Outcome       string     `json:"outcome"` // success, retryable or permanent
	NextDelay     Delay      `json:"next_delay,omitempty"`
	DelayReason   string     `json:"delay_reason,omitempty"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
}

// Delay is a wait as the API reports it, a Go duration such as "5s". It
// also reads the nanosecond numbers of earlier API versions.
type Delay string

// UnmarshalJSON reads a duration string or a number of nanoseconds.
func (d *Delay) UnmarshalJSON(b []byte) error {
	var ns int64
	if json.Unmarshal(b, &ns) == nil {
		*d = Delay(time.Duration(ns).String())
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("next_delay: %w", err)
	}
	*d = Delay(s)
	return nil
}

// Redrive records who redrove a delivery, why and when.
type Redrive struct {
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// SendEvent posts an event; it returns once every delivery is durably
// accepted.
func (c *Client) SendEvent(ctx context.Context, ev Event) (*EventResult, error) {
	return call[EventResult](ctx, c, http.MethodPost, "/v1/events", nil, ev)
}

// GetDelivery returns a delivery's status and timeline.
func (c *Client) GetDelivery(ctx context.Context, id string) (*Delivery, error) {
	return call[Delivery](ctx, c, http.MethodGet, "/v1/deliveries/"+url.PathEscape(id), nil, nil)
}
