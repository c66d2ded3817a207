// Package opevents is hookd's operational events: the catalogue of types
// under hookd. (endpoint changes, endpoint health, delivery transitions,
// expunges), their bodies, and the Emitter that publishes them through
// the same ingest as every event: the event record, then the delivery
// starts, before Emit returns. The changes of endpoints, their health and
// expunges record their events in the store's outbox in their own
// transaction (Event.Record), which internal/outbox publishes; delivery
// transitions are emitted by their activity. Each event goes to the platform's
// endpoints that subscribe to it by name and, when it is about a
// tenant's endpoint or delivery, to that tenant's endpoints that do.
package opevents

import (
	"strings"

	"github.com/hookd/hookd/internal/delivery"
)

// Event types. Types under Reserved are published by hookd alone: the API
// refuses them, so a subscriber can trust an alert is real.
const (
	EndpointCreated  = "hookd.endpoint.created"
	EndpointUpdated  = "hookd.endpoint.updated"
	EndpointDeleted  = "hookd.endpoint.deleted"
	EndpointEnabled  = "hookd.endpoint.enabled"
	EndpointDisabled = "hookd.endpoint.disabled"

	EndpointUnhealthy = "hookd.endpoint.unhealthy"
	EndpointRecovered = "hookd.endpoint.recovered"

	DeliveryDeadLettered = "hookd.delivery.dead_lettered"
	DeliveryRecovered    = "hookd.delivery.recovered"
	DeadLetterRedriven   = "hookd.dead_letter.redriven"

	EventExpunged = "hookd.event.expunged"

	Reserved = delivery.ReservedTypes
)

// Types is the catalogue, in the order the docs list it.
var Types = []string{
	EndpointCreated, EndpointUpdated, EndpointDeleted, EndpointEnabled, EndpointDisabled,
	EndpointUnhealthy, EndpointRecovered,
	DeliveryDeadLettered, DeliveryRecovered, DeadLetterRedriven,
	EventExpunged,
}

// IsReserved reports whether an event type is in hookd's own namespace.
func IsReserved(eventType string) bool { return strings.HasPrefix(eventType, Reserved) }

// Reasons an endpoint's health changed.
const (
	ReasonCircuit     = "circuit"      // its circuit breaker opened or closed
	ReasonSuccessRate = "success_rate" // its success rate over an hour crossed the threshold
)

// Reasons an endpoint is disabled (store.Endpoint.DisabledReason).
const (
	DisabledManual = "manual" // through the API, the CLI or the portal
	DisabledAuto   = "auto"   // no successful attempt for --auto-disable-after while attempts kept failing
	DisabledGone   = "gone"   // its receiver answered 410 Gone
)

// ActorHookd is who hookd's own changes are by.
const ActorHookd = "hookd"
