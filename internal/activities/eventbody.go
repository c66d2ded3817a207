package activities

import (
	"errors"
	"fmt"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/eventkey"
	"github.com/hookd/hookd/internal/store"
)

// errExpunged is an attempt's when its event's key is gone, so its
// sealed body cannot be opened: the delivery ends expunged.
var (
	errExpunged       = errors.New("event expunged")
	errEventKeyPruned = fmt.Errorf("%w: its record was pruned past the dedup window", errExpunged)
)

// openBody returns the body the attempt sends, given what the attempt
// read of its event (store.ReadForAttempt). A body sealed with its
// event's key (delivery.Request.SealedBody) is opened with the key read
// in the same query as the endpoint, so per-event keys add no round
// trip; a plaintext body (a request from before them, or of an event
// recorded without a key) is sent as it is, unless its event was
// expunged.
func openBody(req delivery.Request, k store.EventKey) ([]byte, error) {
	switch {
	case k.Expunged:
		return nil, errExpunged
	case req.SealedBody == nil:
		return []byte(req.Body), nil
	case !k.Found:
		return nil, errEventKeyPruned
	case k.Key == nil:
		return nil, fmt.Errorf("%w: event %s has no data key for its sealed body", errInternal, req.EventID)
	}
	body, err := eventkey.Open(k.Key, req.EventID, req.SealedBody)
	if err != nil {
		return nil, fmt.Errorf("%w: event %s: %w", errInternal, req.EventID, err)
	}
	return []byte(body), nil
}
