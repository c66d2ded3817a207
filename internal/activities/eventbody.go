package activities

import (
	"context"
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

// endpointAndBody reads the endpoint and the body the attempt sends. A
// body sealed with its event's key (delivery.Request.SealedBody) is
// opened with the key read in the same query as the endpoint
// (store.GetEndpointForEvent), so per-event keys add no round trip; a
// plaintext body (a request from before them, or of an event recorded
// without a key) is sent as it is, unless its event was expunged.
func (a *Activities) endpointAndBody(ctx context.Context, req delivery.Request) (*store.Endpoint, []byte, error) {
	ep, k, err := a.endpoints.GetEndpointForEvent(ctx, req.EndpointID, req.EventID)
	switch {
	case err != nil:
		return nil, nil, loadErr(req.EndpointID, err)
	case k.Expunged:
		return nil, nil, errExpunged
	case req.SealedBody == nil:
		return ep, []byte(req.Body), nil
	case !k.Found:
		return nil, nil, errEventKeyPruned
	case k.Key == nil:
		return nil, nil, fmt.Errorf("%w: event %s has no data key for its sealed body", errInternal, req.EventID)
	}
	body, err := eventkey.Open(k.Key, req.EventID, req.SealedBody)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: event %s: %w", errInternal, req.EventID, err)
	}
	return ep, []byte(body), nil
}

func loadErr(endpointID string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return err
	}
	return fmt.Errorf("%w: load endpoint %s: %w", errInternal, endpointID, err)
}
