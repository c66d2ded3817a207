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
// opened with its event's key from the store. expunged says the event
// was expunged, or the key is gone with its pruned record: there is no
// body to show.
func (s *Server) bodyOf(ctx context.Context, req delivery.Request) (body string, expunged bool) {
	ev, err := s.store.GetEvent(ctx, req.EventID)
	switch {
	case err == nil && ev.Expunge != nil: // a plaintext body too is not shown
		return "", true
	case req.SealedBody == nil:
		return req.Body, false
	case errors.Is(err, store.ErrNotFound) || (err == nil && ev.DataKey == nil):
		return "", true
	case err != nil:
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
