// Package opevents is hookd's operational events about endpoints:
// hookd.endpoint.unhealthy and hookd.endpoint.recovered. It holds their
// types, their one body schema, and the publisher both producers (the
// circuit breaker in the activities, the success-rate check in stats) hand
// them to. Publishing happens in the background, so no producer waits on
// Temporal while it holds a workflow task or a flush.
package opevents

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hookd/hookd/internal/ingest"
)

// Event types. Types under Reserved are published by hookd alone: the API
// refuses them, so a subscriber can trust an alert is real.
const (
	EndpointUnhealthy = "hookd.endpoint.unhealthy"
	EndpointRecovered = "hookd.endpoint.recovered"
	Reserved          = "hookd."
)

// IsReserved reports whether an event type is in hookd's own namespace.
func IsReserved(eventType string) bool { return strings.HasPrefix(eventType, Reserved) }

// Reasons an endpoint's health changed.
const (
	ReasonCircuit     = "circuit"      // its circuit breaker opened or closed
	ReasonSuccessRate = "success_rate" // its success rate over an hour crossed the threshold
)

// Health is the body of every endpoint health event, whichever check
// raised it: Reason says which, and the matching one of Circuit and
// SuccessRate holds its figures.
type Health struct {
	EndpointID  string       `json:"endpoint_id"`
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

// event is the ingest event of a health change. Its ID derives from the
// change (type, reason, endpoint, second), so publishing it again, by a
// retry or by another process that saw the same change, deduplicates.
func (h Health) event(eventType string) (ingest.Event, error) {
	h.At = h.At.UTC()
	body, err := json.Marshal(h)
	if err != nil {
		return ingest.Event{}, fmt.Errorf("encode %s: %w", eventType, err)
	}
	return ingest.Event{
		ID:   fmt.Sprintf("%s:%s:%s:%d", eventType, h.Reason, h.EndpointID, h.At.Unix()),
		Type: eventType,
		Body: string(body),
	}, nil
}
