package opevents

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// Event is one operational event to emit. Its ID is derived from what
// happened, so emitting it again (an activity's retry, another process
// that saw the same change) deduplicates at the event record.
type Event struct {
	ID, Type string
	// TenantID is the tenant the event is about ("" for the platform's
	// own endpoints and deliveries); its endpoints subscribed to the type
	// receive a copy. TenantIncarnation is that tenant's incarnation.
	TenantID, TenantIncarnation string
	// About names the endpoint whose tenant the event is about, when the
	// producer does not know it: Emit reads the endpoint for it.
	About string
	Body  any
}

// EndpointChange is the body of hookd.endpoint.created, updated,
// deleted, enabled and disabled: which endpoint, who changed it and why.
// It never holds the endpoint's URL, secrets or credentials.
type EndpointChange struct {
	EndpointID string    `json:"endpoint_id"`
	TenantID   string    `json:"tenant_id,omitempty"`
	By         string    `json:"by"`
	Reason     string    `json:"reason,omitempty"`
	At         time.Time `json:"at"`
	Enabled    bool      `json:"enabled"`
	// DisabledReason is manual, auto or gone while the endpoint is
	// disabled.
	DisabledReason string `json:"disabled_reason,omitempty"`
	// Fields names the fields an update changed.
	Fields []string `json:"fields,omitempty"`
}

// Health is the body of every endpoint health event, whichever check
// raised it: Reason says which, and the matching one of Circuit and
// SuccessRate holds its figures.
type Health struct {
	EndpointID  string       `json:"endpoint_id"`
	TenantID    string       `json:"tenant_id,omitempty"`
	Reason      string       `json:"reason"`
	At          time.Time    `json:"at"`
	Circuit     *Circuit     `json:"circuit,omitempty"`
	SuccessRate *SuccessRate `json:"success_rate,omitempty"`
}

// Circuit is the circuit breaker's state after the change.
type Circuit struct {
	State     string    `json:"state"` // closed, open or half_open
	Failures  int       `json:"consecutive_failures"`
	OpenUntil time.Time `json:"open_until,omitzero"`
}

// SuccessRate is the figures the success-rate check judged.
type SuccessRate struct {
	Rate      float64 `json:"rate"`
	Attempts  int64   `json:"attempts"`
	Successes int64   `json:"successes"`
	Window    string  `json:"window"`
	Threshold float64 `json:"threshold"`
}

// DeliveryChange is the body of hookd.delivery.dead_lettered,
// hookd.delivery.recovered and hookd.dead_letter.redriven: the delivery,
// its run, and for a dead letter how its last attempt ended (status and
// error class, never the response or the URL).
type DeliveryChange struct {
	DeliveryID string    `json:"delivery_id"`
	EventID    string    `json:"event_id"`
	EventType  string    `json:"event_type"`
	EndpointID string    `json:"endpoint_id"`
	TenantID   string    `json:"tenant_id,omitempty"`
	Run        int       `json:"run"`
	At         time.Time `json:"at"`
	// Status is failed or exhausted (dead_lettered), delivered
	// (recovered).
	Status     string `json:"status,omitempty"`
	Attempts   int    `json:"attempts,omitempty"`
	LastStatus int    `json:"last_status,omitempty"`
	ErrorClass string `json:"last_error_class,omitempty"`
	// By and Reason say who redrove it and why (redriven).
	By     string `json:"by,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Expunge is the body of hookd.event.expunged: which event, who expunged
// it and why.
type Expunge struct {
	EventID  string    `json:"event_id"`
	TenantID string    `json:"tenant_id,omitempty"`
	By       string    `json:"by"`
	Reason   string    `json:"reason,omitempty"`
	At       time.Time `json:"at"`
}

// EndpointEvent is the event of a change of ep by by, for reason, at at;
// fields names what an update changed. It is about ep (About), so a new
// endpoint's event takes the incarnation the store gives it.
func EndpointEvent(eventType string, ep *store.Endpoint, by, reason string, fields []string, at time.Time) Event {
	at = at.UTC()
	return Event{
		ID:   fmt.Sprintf("%s:%s:%d", eventType, ep.ID, at.UnixNano()),
		Type: eventType, TenantID: ep.TenantID, TenantIncarnation: ep.TenantIncarnation, About: ep.ID,
		Body: EndpointChange{EndpointID: ep.ID, TenantID: ep.TenantID, By: by, Reason: reason, At: at,
			Enabled: ep.Enabled, DisabledReason: ep.DisabledReason, Fields: fields},
	}
}

// HealthEvent is the event of a health change. Its ID derives from the
// change (type, reason, endpoint, second). The endpoint's tenant is read
// by Emit when ep is nil.
func HealthEvent(eventType string, h Health, ep *store.Endpoint) Event {
	h.At = h.At.UTC()
	ev := Event{ID: fmt.Sprintf("%s:%s:%s:%d", eventType, h.Reason, h.EndpointID, h.At.Unix()), Type: eventType, About: h.EndpointID}
	if ep != nil {
		ev.About, ev.TenantID, ev.TenantIncarnation = "", ep.TenantID, ep.TenantIncarnation
		h.TenantID = ep.TenantID
	}
	ev.Body = h
	return ev
}

// Quiet reports whether req's transitions are not announced
// (delivery.Request.Quiet).
func Quiet(req delivery.Request) bool { return req.Quiet() }

// DeadLetteredEvent is the event of dl's death, one per run of the
// delivery.
func DeadLetteredEvent(dl delivery.DeadLetter) Event {
	req := dl.Request
	body := deliveryBody(req, dl.DeadAt)
	body.Status, body.Attempts = string(dl.Reason), len(dl.Attempts)
	if n := len(dl.Attempts); n > 0 {
		body.LastStatus, body.ErrorClass = dl.Attempts[n-1].Status, dl.Attempts[n-1].ErrorClass
	}
	return deliveryEvent(DeliveryDeadLettered, req, body)
}

// RecoveredEvent is the event of req delivered at at after failing, by
// its attempt number attempts.
func RecoveredEvent(req delivery.Request, attempts int, status int, at time.Time) Event {
	body := deliveryBody(req, at)
	body.Status, body.Attempts, body.LastStatus = string(delivery.StatusDelivered), attempts, status
	return deliveryEvent(DeliveryRecovered, req, body)
}

// RedrivenEvent is the event of the redrive that started req's run.
func RedrivenEvent(req delivery.Request) Event {
	var body DeliveryChange
	if req.Redrive != nil {
		body = deliveryBody(req, req.Redrive.At)
		body.By, body.Reason = req.Redrive.By, req.Redrive.Reason
	} else {
		body = deliveryBody(req, time.Time{})
	}
	return deliveryEvent(DeadLetterRedriven, req, body)
}

// ExpungedEvent is the event of the expunge of an event of tenantID
// (incarnation incarnation; both "" for the platform's), by by for
// reason at at. One per event ID.
func ExpungedEvent(eventID, tenantID, incarnation, by, reason string, at time.Time) Event {
	at = at.UTC()
	return Event{
		ID: EventExpunged + ":" + eventID, Type: EventExpunged, TenantID: tenantID, TenantIncarnation: incarnation,
		Body: Expunge{EventID: eventID, TenantID: tenantID, By: by, Reason: reason, At: at},
	}
}

func deliveryBody(req delivery.Request, at time.Time) DeliveryChange {
	return DeliveryChange{
		DeliveryID: req.DeliveryID, EventID: req.EventID, EventType: req.EventType, EndpointID: req.EndpointID,
		TenantID: req.TenantID, Run: max(req.Run, 1), At: at.UTC(),
	}
}

// deliveryEvent is a delivery transition's event: its ID is the type,
// the delivery ID and the run, so each run announces each transition
// once however often its activity is retried.
func deliveryEvent(eventType string, req delivery.Request, body DeliveryChange) Event {
	return Event{
		ID:   fmt.Sprintf("%s:%s:%d", eventType, req.DeliveryID, body.Run),
		Type: eventType, TenantID: req.TenantID, TenantIncarnation: req.TenantIncarnation, Body: body,
	}
}

// Record is ev as the store's outbox keeps it (store.OpEvent), for the
// change that causes it to record in its own transaction. A body that
// does not encode (none of the catalogue's) is recorded as null.
func (ev Event) Record() store.OpEvent {
	body, err := json.Marshal(ev.Body)
	if err != nil {
		body = []byte("null")
	}
	return store.OpEvent{ID: ev.ID, Type: ev.Type, TenantID: ev.TenantID, TenantIncarnation: ev.TenantIncarnation, About: ev.About, Body: body}
}

// Recorded is the event of an outbox row, its tenant as the store
// resolved it, its body as recorded: publishing it again publishes the
// same event.
func Recorded(r store.OpEvent) Event {
	return Event{ID: r.ID, Type: r.Type, TenantID: r.TenantID, TenantIncarnation: r.TenantIncarnation, Body: json.RawMessage(r.Body)}
}
