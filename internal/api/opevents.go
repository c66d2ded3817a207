package api

import (
	"context"

	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
)

// emitEndpoint emits an operational event about a change of ep before the
// call that made it answers: recorded, and its deliveries started. A
// failure is logged by the emitter and does not undo the change.
func (s *Server) emitEndpoint(ctx context.Context, eventType string, ep *store.Endpoint, reason string, fields []string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opevents.Timeout)
	defer cancel()
	_ = s.events.Emit(ctx, opevents.EndpointEvent(eventType, ep, authz.FromContext(ctx).Actor(), reason, fields, ep.UpdatedAt))
}

// emitSwitch emits hookd.endpoint.enabled or disabled when an endpoint's
// switch changed.
func (s *Server) emitSwitch(ctx context.Context, ep *store.Endpoint, wasEnabled bool, reason string) {
	switch {
	case ep.Enabled && !wasEnabled:
		s.emitEndpoint(ctx, opevents.EndpointEnabled, ep, reason, nil)
	case !ep.Enabled && wasEnabled:
		s.emitEndpoint(ctx, opevents.EndpointDisabled, ep, reason, nil)
	}
}

// changedFields names the fields of a patch that an update sets, but the
// switch (announced on its own).
func (p endpointPatch) changedFields() []string {
	var out []string
	add := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	add(p.URL != nil, "url")
	add(p.Description != nil, "description")
	add(p.EventTypes != nil, "event_types")
	add(p.Filter.Set, "filter")
	add(p.RetrySchedule != nil, "retry_schedule")
	add(p.Timeout != nil, "timeout")
	add(p.Metadata != nil, "metadata")
	add(p.Headers != nil, "headers")
	add(p.Auth.Set, "auth")
	add(p.PropagateTrace != nil, "propagate_trace")
	add(p.RateLimit.Set, "rate_limit")
	return out
}
