package api

import (
	"errors"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/store"
)

// EndpointErrors checks each field p sets on its own, with the rules
// CreateEndpoint and UpdateEndpoint apply, and returns every field's
// error (CodeInvalid, Field set), in the patch's field order: a form
// shows them all at once, where the routes stop at the first. It changes
// nothing.
func (s *Server) EndpointErrors(p EndpointPatch) []*Error {
	one := []wire.EndpointPatch{
		{URL: p.URL}, {Description: p.Description}, {EventTypes: p.EventTypes},
		{RetrySchedule: p.RetrySchedule}, {Timeout: p.Timeout}, {Metadata: p.Metadata}, {Signing: p.Signing},
	}
	var out []*Error
	for _, f := range one {
		var e *Error
		if err := s.apply(f, &store.Endpoint{}); errors.As(err, &e) && e.Code == CodeInvalid {
			out = append(out, e)
		}
	}
	return out
}
