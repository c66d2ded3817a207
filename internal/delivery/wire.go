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

// requestFields is Request without its JSON methods: requestWire embeds
// it so every field of Request travels, and overrides the few it writes
// differently (a field declared on requestWire shadows the embedded one of
// the same JSON name).
type requestFields Request

// requestWire is Request as JSON. The body is the "payload" when it can be
// embedded as JSON byte for byte, else the string "body".
type requestWire struct {
	requestFields
	Payload  json.RawMessage `json:"payload,omitempty"`
	Body     *string         `json:"body,omitempty"`
	Schedule []duration      `json:"schedule"`
	Timeout  duration        `json:"timeout"`
}

// MarshalJSON writes the request with readable durations and payload.
func (r Request) MarshalJSON() ([]byte, error) {
	w := requestWire{requestFields: requestFields(r), Schedule: durations(r.Schedule), Timeout: duration(r.Timeout)}
	switch {
	case r.SealedBody != nil && r.Body == "": // the sealed body alone
	case embeddable(r.Body):
		w.Payload = json.RawMessage(r.Body)
	default:
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
	*r = Request(w.requestFields)
	r.Schedule, r.Timeout = fromDurations(w.Schedule), time.Duration(w.Timeout)
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

// attemptFields is Attempt without its JSON methods (see requestFields).
type attemptFields Attempt

// attemptWire is Attempt as JSON, with readable durations.
type attemptWire struct {
	attemptFields
	Duration  duration  `json:"duration"`
	NextDelay *duration `json:"next_delay,omitempty"`
}

// MarshalJSON writes the attempt with readable durations.
func (a Attempt) MarshalJSON() ([]byte, error) {
	w := attemptWire{attemptFields: attemptFields(a), Duration: duration(a.Duration)}
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
	*a = Attempt(w.attemptFields)
	a.Duration, a.NextDelay = time.Duration(w.Duration), 0
	if w.NextDelay != nil {
		a.NextDelay = time.Duration(*w.NextDelay)
	}
	return nil
}

// deadLetterParamsFields is DeadLetterParams without its JSON methods.
type deadLetterParamsFields DeadLetterParams

// deadLetterParamsWire is DeadLetterParams as JSON, with a readable retention.
type deadLetterParamsWire struct {
	deadLetterParamsFields
	Retention duration `json:"retention"`
}

// MarshalJSON writes the parameters with a readable retention.
func (p DeadLetterParams) MarshalJSON() ([]byte, error) {
	return json.Marshal(deadLetterParamsWire{deadLetterParamsFields: deadLetterParamsFields(p), Retention: duration(p.Retention)})
}

// UnmarshalJSON reads the parameters in this encoding or the one before.
func (p *DeadLetterParams) UnmarshalJSON(b []byte) error {
	var w deadLetterParamsWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = DeadLetterParams(w.deadLetterParamsFields)
	p.Retention = time.Duration(w.Retention)
	return nil
}
