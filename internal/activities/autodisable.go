package activities

import (
	"context"
	"time"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
)

// DefaultAutoDisableAfter is --auto-disable-after's default: an endpoint
// whose attempts have failed for five days with no success is disabled.
const DefaultAutoDisableAfter = 120 * time.Hour

// disable turns ep off for reason (opevents.DisabledAuto or
// DisabledGone) and, if this call is the one that did (several workers
// may try at once), records hookd.endpoint.disabled in the store's
// outbox with the change. It reports whether ep is off now.
func (a *Activities) disable(ctx context.Context, ep *store.Endpoint, reason string) bool {
	now := a.now().UTC()
	off := *ep
	off.Enabled, off.DisabledReason, off.UpdatedAt = false, reason, now
	changed, err := a.endpoints.DisableEndpoint(ctx, ep.ID, reason, now,
		opevents.EndpointEvent(opevents.EndpointDisabled, &off, opevents.ActorHookd, reason, nil, now).Record())
	if err != nil {
		a.log.Warn("disable endpoint", "endpoint_id", ep.ID, "reason", reason, "error", err)
		return false
	}
	if !changed {
		return true
	}
	a.log.Warn("endpoint disabled", "endpoint_id", ep.ID, "reason", reason)
	return true
}

// failingTooLong reports whether b says the endpoint's attempts have
// failed, with no success, for the auto-disable period by now.
func (a *Activities) failingTooLong(b circuit.Breaker, now time.Time) bool {
	return a.autoDisableAfter > 0 && !b.FailingSince.IsZero() && now.Sub(b.FailingSince) >= a.autoDisableAfter
}
