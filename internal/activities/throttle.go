package activities

import (
	"context"
	"sync"
	"time"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// MaxInlineWait is how much longer than its limit's Lead an attempt
// waits in place for its slot; a slot further ahead is the workflow's
// wait, on a timer that ends Lead before the slot. A wait this short
// costs less in place than a timer's round trip through Temporal.
const MaxInlineWait = 25 * time.Millisecond

// throttle gives an attempt to ep its slot under the endpoint's rate
// limit, if it has one: none costs nothing. A delivery that holds a slot
// (reserved at ingest, or by an earlier attempt that deferred; held) keeps
// it while the limit is the one it was reserved under. Otherwise the
// attempt reserves a slot, one write (store.RateLimits.ReserveSlot). A
// slot within the limit's Lead (and MaxInlineWait) is waited out here;
// one further ahead is the workflow's wait (wait), g saying until when:
// Lead before the slot, keeping it. An attempt whose slot has come then
// takes its turn from the worker's pacer, waiting up to Lead in place, or
// on a timer to the turn the pacer gives it.
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
	keep := &delivery.Slot{At: slot.At, Since: slot.Since}
	ahead := slot.At.Sub(now)
	if ahead > l.Lead()+MaxInlineWait || sleep(ctx, ahead) != nil {
		return gate{wait: slot.At.Add(-l.Lead()), reason: delivery.WaitRateLimit, slot: keep}, true
	}
	if ahead > 0 {
		now = slot.At
	}
	d, ok := a.pace.wait(ep.ID, *l, now, l.Lead())
	if !ok {
		// A bunch late past its slots: the rest wait on a timer, each to
		// a turn of its own, keeping the slot they hold.
		return gate{wait: now.Add(d), reason: delivery.WaitRateLimit, slot: keep}, true
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
// own per endpoint over the attempts it let go, in memory, and spaces
// such a bunch out: each waits up to its limit's Lead in place; the rest
// get turns of their own, an interval apart, to wait for on a timer, so
// they come back spread instead of together. No store write, and nothing
// to wait for when timers are on time.
type pacer struct {
	mu  sync.Mutex
	tat map[string]paced
}

// paced is one endpoint's theoretical arrival time in the pacer, under
// the limit set at since, and the turn the next attempt it refuses gets.
type paced struct {
	tat, since, next time.Time
}

// pacerSweep is the size at which the pacer drops the endpoints it no
// longer paces.
const pacerSweep = 1024

// wait returns how long until the endpoint's next slot in this worker at
// now under l starts, and takes it if that is at most most (ok). Refused
// (not ok), the attempt is given a turn of its own instead: the later of
// that slot and the turn after the last one refused.
func (p *pacer) wait(endpointID string, l store.RateLimit, now time.Time, most time.Duration) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tat == nil {
		p.tat = map[string]paced{}
	}
	if len(p.tat) >= pacerSweep {
		for id, e := range p.tat {
			if e.tat.Before(now) && e.next.Before(now) {
				delete(p.tat, id)
			}
		}
	}
	e := p.tat[endpointID]
	if !e.since.Equal(l.Since) {
		e = paced{since: l.Since}
	}
	if e.tat.Before(now) {
		e.tat = now
	}
	tat := e.tat.Add(l.Interval())
	d := l.SlotAt(tat, now).Sub(now)
	if d <= most {
		e.tat = tat
		p.tat[endpointID] = e
		return d, true
	}
	turn := now.Add(d)
	if e.next.After(turn) {
		turn = e.next
	}
	e.next = turn.Add(l.Interval())
	p.tat[endpointID] = e
	return turn.Sub(now), false
}
