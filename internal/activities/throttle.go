package activities

import (
	"context"
	"sync"
	"time"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// MaxInlineWait is the longest an attempt waits for its rate limit's slot
// inside the attempt itself; a slot further ahead is the workflow's wait,
// on a timer. A wait this short costs less in place than a timer's round
// trip through Temporal, and is well below an interval at 20 a second.
const MaxInlineWait = 25 * time.Millisecond

// MaxPace bounds how long an attempt whose slot has come waits in place
// for this worker's own spacing (pacer); a longer wait is a timer's. It
// is short: a waiting attempt holds one of its endpoint's share of the
// worker's attempts in flight, and a bunch held for long would defer the
// next deliveries as "endpoint busy", whose turns come slower than the
// limit's.
const MaxPace = MaxInlineWait

// throttle gives an attempt to ep its slot under the endpoint's rate
// limit, if it has one: none costs nothing. A delivery woken for a slot it
// holds (held, reserved under the limit as it is now) keeps it: it goes
// if the slot has come, or waits for it again if something woke it early
// (a circuit that closed). Otherwise the attempt reserves a slot, one
// write (store.RateLimits.ReserveSlot). wait reports that the attempt
// waits, g saying until when; a slot within MaxInlineWait is slept out
// here instead. An attempt whose slot has come then waits for the
// worker's pacer, up to MaxPace in place, or on a timer to the turn the
// pacer names, keeping its slot, to ask again then.
// A store that cannot reserve lets the attempt through: a store hiccup
// must not stop deliveries.
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
	if ahead > MaxInlineWait || sleep(ctx, ahead) != nil {
		return gate{wait: slot.At, reason: delivery.WaitRateLimit, slot: &delivery.Slot{At: slot.At, Since: slot.Since}}, true
	}
	if ahead > 0 {
		now = slot.At
	}
	d, ok := a.pace.wait(ep.ID, *l, now, MaxPace)
	if !ok {
		// A bunch late past its slots: the rest wait on a timer, keeping
		// the slot they hold, and ask the pacer again when it ends.
		return gate{wait: now.Add(d), reason: delivery.WaitRateLimit, slot: &delivery.Slot{At: slot.At, Since: slot.Since}}, true
	}
	_ = sleep(ctx, d)
	return gate{}, false
}

// sleep waits d (nothing if d <= 0), or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pacer spaces one worker's attempts to each limited endpoint by the
// endpoint's limit, at the moment they go. Slots in the store keep the
// sum over every worker at the limit on average; but deliveries whose
// timers fire late (a busy worker) would all find their slots passed and
// go together, more than a burst at once. The pacer keeps a GCRA of its
// own per endpoint, in memory, and spaces such a bunch out: each waits up
// to MaxPace in place; the rest wait on a timer and ask again.
// No store write, and nothing to wait for when timers are on time.
type pacer struct {
	mu  sync.Mutex
	tat map[string]paced
}

// paced is one endpoint's theoretical arrival time in the pacer, under
// the limit set at since.
type paced struct {
	tat, since time.Time
}

// pacerSweep is the size at which the pacer drops the endpoints it no
// longer paces.
const pacerSweep = 1024

// wait returns how long until the endpoint's next slot in this worker at
// now under l starts, and takes it if that is at most most (ok).
func (p *pacer) wait(endpointID string, l store.RateLimit, now time.Time, most time.Duration) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tat == nil {
		p.tat = map[string]paced{}
	}
	if len(p.tat) >= pacerSweep {
		for id, e := range p.tat {
			if e.tat.Before(now) {
				delete(p.tat, id)
			}
		}
	}
	e := p.tat[endpointID]
	if !e.since.Equal(l.Since) || e.tat.Before(now) {
		e = paced{tat: now, since: l.Since}
	}
	e.tat = e.tat.Add(l.Interval())
	d := l.SlotAt(e.tat, now).Sub(now)
	if d > most {
		return d, false
	}
	p.tat[endpointID] = e
	return d, true
}
