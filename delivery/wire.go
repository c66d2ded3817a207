package delivery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// How the shared types read in Temporal's Web UI and CLI, where workflow
// inputs, results and signals show as JSON: durations as Go duration
// strings ("30s") and the payload as JSON, not as an escaped string.
// Every decoder also reads the encoding before this one (durations in
// nanoseconds, the payload as the string "body"), so histories recorded
// by earlier versions replay and running workflows carry on.

// duration is a time.Duration in JSON: written as a Go duration string,
// read from one or from a number of nanoseconds.
type duration time.Duration

func (d duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func (d *duration) UnmarshalJSON(b []byte) error {
	var ns int64
	if json.Unmarshal(b, &ns) == nil {
		*d = duration(ns)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: want a string such as \"30s\" or nanoseconds: %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = duration(v)
	return nil
}

func durations(in []time.Duration) []duration {
	if in == nil {
		return nil
	}
	out := make([]duration, len(in))
	for i, d := range in {
		out[i] = duration(d)
	}
	return out
}

func fromDurations(in []duration) []time.Duration {
	if in == nil {
		return nil
	}
	out := make([]time.Duration, len(in))
	for i, d := range in {
		out[i] = time.Duration(d)
	}
	return out
}

// requestWire is Request as JSON. The body is the "payload" when it can be
// embedded as JSON byte for byte, else the string "body".
type requestWire struct {
	DeliveryID string          `json:"delivery_id"`
	EventID    string          `json:"event_id"`
	EventType  string          `json:"event_type"`
	EndpointID string          `json:"endpoint_id"`
	Payload    json.RawMessage `json:"payload,omitempty"`
	Body       *string         `json:"body,omitempty"`
	Schedule   []duration      `json:"schedule"`
	Timeout    duration        `json:"timeout"`
	Redrive    *Redrive        `json:"redrive,omitempty"`
	Resume     []Attempt       `json:"resume,omitempty"`
}

// MarshalJSON writes the request with readable durations and payload.
func (r Request) MarshalJSON() ([]byte, error) {
	w := requestWire{
		DeliveryID: r.DeliveryID, EventID: r.EventID, EventType: r.EventType, EndpointID: r.EndpointID,
		Schedule: durations(r.Schedule), Timeout: duration(r.Timeout), Redrive: r.Redrive, Resume: r.Resume,
	}
	if embeddable(r.Body) {
		w.Payload = json.RawMessage(r.Body)
	} else {
		w.Body = &r.Body
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a request in this encoding or the one before.
func (r *Request) UnmarshalJSON(b []byte) error {
	var w requestWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = Request{
		DeliveryID: w.DeliveryID, EventID: w.EventID, EventType: w.EventType, EndpointID: w.EndpointID,
		Schedule: fromDurations(w.Schedule), Timeout: time.Duration(w.Timeout), Redrive: w.Redrive, Resume: w.Resume,
	}
	switch {
	case w.Payload != nil:
		r.Body = string(w.Payload)
	case w.Body != nil:
		r.Body = *w.Body
	}
	return nil
}

// embeddable reports whether body, a JSON object or array, comes back
// byte for byte when embedded in JSON. encoding/json compacts what it
// embeds and escapes <, >, &, U+2028 and U+2029, so a body with
// insignificant whitespace or those characters stays a string.
func embeddable(body string) bool {
	if body == "" || (body[0] != '{' && body[0] != '[') {
		return false
	}
	out, err := json.Marshal(json.RawMessage(body))
	return err == nil && bytes.Equal(out, []byte(body))
}

// attemptWire is Attempt as JSON, with readable durations.
type attemptWire struct {
	Number      int       `json:"number"`
	Start       time.Time `json:"start"`
	Duration    duration  `json:"duration"`
	Status      int       `json:"status,omitempty"`
	ErrorClass  string    `json:"error_class,omitempty"`
	Error       string    `json:"error,omitempty"`
	Response    string    `json:"response,omitempty"`
	Outcome     Outcome   `json:"outcome"`
	NextDelay   *duration `json:"next_delay,omitempty"`
	DelayReason string    `json:"delay_reason,omitempty"`
	NextAttempt time.Time `json:"next_attempt,omitzero"`
}

// MarshalJSON writes the attempt with readable durations.
func (a Attempt) MarshalJSON() ([]byte, error) {
	w := attemptWire{
		Number: a.Number, Start: a.Start, Duration: duration(a.Duration), Status: a.Status,
		ErrorClass: a.ErrorClass, Error: a.Error, Response: a.Response, Outcome: a.Outcome,
		DelayReason: a.DelayReason, NextAttempt: a.NextAttempt,
	}
	if a.NextDelay != 0 {
		d := duration(a.NextDelay)
		w.NextDelay = &d
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads an attempt in this encoding or the one before.
func (a *Attempt) UnmarshalJSON(b []byte) error {
	var w attemptWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*a = Attempt{
		Number: w.Number, Start: w.Start, Duration: time.Duration(w.Duration), Status: w.Status,
		ErrorClass: w.ErrorClass, Error: w.Error, Response: w.Response, Outcome: w.Outcome,
		DelayReason: w.DelayReason, NextAttempt: w.NextAttempt,
	}
	if w.NextDelay != nil {
		a.NextDelay = time.Duration(*w.NextDelay)
	}
	return nil
}

// deadLetterParamsWire is DeadLetterParams as JSON.
type deadLetterParamsWire struct {
	Retention  duration `json:"retention"`
	DeliveryID string   `json:"delivery_id,omitempty"`
	EndpointID string   `json:"endpoint_id,omitempty"`
	EventID    string   `json:"event_id,omitempty"`
	EventType  string   `json:"event_type,omitempty"`
	Reason     Status   `json:"reason,omitempty"`
}

// MarshalJSON writes the parameters with a readable retention.
func (p DeadLetterParams) MarshalJSON() ([]byte, error) {
	return json.Marshal(deadLetterParamsWire{
		Retention: duration(p.Retention), DeliveryID: p.DeliveryID, EndpointID: p.EndpointID,
		EventID: p.EventID, EventType: p.EventType, Reason: p.Reason,
	})
}

// UnmarshalJSON reads the parameters in this encoding or the one before.
func (p *DeadLetterParams) UnmarshalJSON(b []byte) error {
	var w deadLetterParamsWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = DeadLetterParams{
		Retention: time.Duration(w.Retention), DeliveryID: w.DeliveryID, EndpointID: w.EndpointID,
		EventID: w.EventID, EventType: w.EventType, Reason: w.Reason,
	}
	return nil
}
