package activities

import (
	"context"
	"time"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// MaxInlineWait is the longest an attempt waits for its rate limit's slot
// inside the attempt itself; a slot further ahead is the workflow's wait,
// on a timer. A wait this short costs less in place than a timer's round
// trip through Temporal, and is well below an interval at 20 a second.
const MaxInlineWait = 25 * time.Millisecond

// throttle gives an attempt to ep its slot under the endpoint's rate
// limit, if it has one: none costs nothing. A delivery woken for a slot it
// holds (held, reserved under the limit as it is now) keeps it: it goes
// if the slot has come, or waits for it again if something woke it early
// (a circuit that closed). Otherwise the attempt reserves a slot, one
// write (store.RateLimits.ReserveSlot). wait reports that the attempt
// waits, g saying until when; a slot within MaxInlineWait is slept out
// here instead. A store that cannot reserve lets the attempt through: a
// store hiccup must not stop deliveries.
func (a *Activities) throttle(ctx context.Context, ep *store.Endpoint, held *delivery.Slot, now time.Time) (g gate, wait bool) {
	l := ep.RateLimit
	if l == nil {
		return gate{}, false
	}
	var slot store.Slot
	if held != nil && (store.Slot{At: held.At, Since: held.Since}).Holds(l) {
		slot = store.Slot{At: held.At, Since: held.Since}
	} else {
		var err error
		if slot, err = a.endpoints.ReserveSlot(ctx, ep.ID, *l, now); err != nil {
			a.log.Warn("reserve a rate limit slot", "endpoint_id", ep.ID, "error", err)
			return gate{}, false
		}
	}
	ahead := slot.At.Sub(now)
	if ahead <= 0 {
		return gate{}, false
	}
	if ahead <= MaxInlineWait {
		t := time.NewTimer(ahead)
		defer t.Stop()
		select {
		case <-t.C:
			return gate{}, false
		case <-ctx.Done():
		}
	}
	return gate{wait: slot.At, reason: delivery.WaitRateLimit, slot: &delivery.Slot{At: slot.At, Since: slot.Since}}, true
}
