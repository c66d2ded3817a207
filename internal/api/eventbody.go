package api

import (
	"context"
	"errors"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/eventkey"
	"github.com/hookd/hookd/internal/store"
)

// bodyOf is the body a delivery request carries, as the API shows it: the
// plaintext of a request from before per-event keys, or the sealed body
// opened with its event's key from the store. expunged says the key is
// gone (the event expunged, or its record pruned): there is no body to
// show.
func (s *Server) bodyOf(ctx context.Context, req delivery.Request) (body string, expunged bool) {
	if req.SealedBody == nil {
		return req.Body, false
	}
	ev, err := s.store.GetEvent(ctx, req.EventID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && ev.DataKey == nil) {
		return "", true
	}
	if err != nil {
		s.log.Warn("read event key", "event_id", req.EventID, "error", err)
		return "", false
	}
	body, err = eventkey.Open(ev.DataKey, req.EventID, req.SealedBody)
	if err != nil {
		s.log.Warn("open event body", "event_id", req.EventID, "error", err)
		return "", false
	}
	return body, false
}
