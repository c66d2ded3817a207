package api

import (
	"context"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
)

// endpointEvent is the operational event of a change of ep (at
// ep.UpdatedAt, by the actor of ctx), which the store call making the
// change records in its outbox in the same transaction.
func endpointEvent(ctx context.Context, eventType string, ep *store.Endpoint, reason string, fields []string) store.OpEvent {
	return opevents.EndpointEvent(eventType, ep, authz.FromContext(ctx).Actor(), reason, fields, ep.UpdatedAt).Record()
}

// updateEvents are the events of an update of ep: hookd.endpoint.updated
// when fields changed, and hookd.endpoint.enabled or disabled when its
// switch did.
func updateEvents(ctx context.Context, ep *store.Endpoint, fields []string, wasEnabled bool) []store.OpEvent {
	var out []store.OpEvent
	if len(fields) > 0 {
		out = append(out, endpointEvent(ctx, opevents.EndpointUpdated, ep, "", fields))
	}
	switch {
	case ep.Enabled && !wasEnabled:
		out = append(out, endpointEvent(ctx, opevents.EndpointEnabled, ep, "", nil))
	case !ep.Enabled && wasEnabled:
		out = append(out, endpointEvent(ctx, opevents.EndpointDisabled, ep, "", nil))
	}
	return out
}

// changedFields names the fields of a patch that an update sets, but the
// switch (announced on its own).
func changedFields(p wire.EndpointPatch) []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	add(p.URL != nil, "url")
	add(p.Description != nil, "description")
	add(p.EventTypes != nil, "event_types")
	add(!p.Filter.IsZero(), "filter")
	add(p.RetrySchedule != nil, "retry_schedule")
	add(p.Timeout != nil, "timeout")
	add(p.Metadata != nil, "metadata")
	add(p.Headers != nil, "headers")
	add(!p.Auth.IsZero(), "auth")
	add(p.PropagateTrace != nil, "propagate_trace")
	add(!p.RateLimit.IsZero(), "rate_limit")
	return out
}
