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

// catchUp is how far ahead of now the pacer gives an attempt that came
// late for its slot a turn, to wait for in place: a tenth of a second, ten
// intervals at most. Each worker's pacer spaces only its own attempts, so
// when deliveries in several workers come late together, each catches up
// at the limit on its own: this bounds what they send together above it.
// An attempt further behind takes a new slot from the store.
func catchUp(l store.RateLimit) time.Duration {
	return min(100*time.Millisecond, 10*l.Interval())
}

// throttle gives an attempt to ep its slot under the endpoint's rate
// limit, if it has one: none costs nothing. A delivery that holds a slot
// (reserved at ingest, or by an earlier attempt that deferred; held)
// keeps it while the limit is the one it was reserved under. Otherwise
// the attempt reserves a slot, one write (store.RateLimits.ReserveSlot).
// A slot within the limit's Lead (and MaxInlineWait) is waited out here;
// one further ahead is the workflow's wait (wait), g saying until when:
// Lead before the slot, keeping it. An attempt whose slot has come then
// takes its turn from the worker's pacer, waiting up to catchUp (and the
// pacer's burstMargin) in place, and then its send from the pacer's
// record of the sends themselves (pacer.send).
// One the pacer refuses (a bunch come late past their slots) takes a new
// slot from the store, behind those reserved (and not before the pacer's
// next), and waits for it: a late delivery waits again once, not in a
// queue of its own that later arrivals jump, and the sum over every
// worker stays at the limit.
// Every wait is measured from the clock as it is then, not from when the
// attempt began: the store's reads and writes before it take time, and
// an attempt that counted from its start would send that much late.
// A store that cannot reserve lets the attempt through: a store hiccup
// must not stop deliveries.
func (a *Activities) throttle(ctx context.Context, ep *store.Endpoint, held *delivery.Slot) (g gate, wait bool) {
	l := ep.RateLimit
	if l == nil {
		return gate{}, false
	}
	var slot store.Slot
	reserved := held == nil || !(store.Slot{At: held.At, Since: held.Since}).Holds(l)
	if reserved {
		var err error
		if slot, err = a.endpoints.ReserveSlot(ctx, ep.ID, *l, a.now()); err != nil {
			a.log.Warn("reserve a rate limit slot", "endpoint_id", ep.ID, "error", err)
			return gate{}, false
		}
	} else {
		slot = store.Slot{At: held.At, Since: held.Since}
	}
	for {
		if g, wait := a.waitForSlot(ctx, l, slot, a.now()); wait {
			return g, true
		}
		now := later(a.now(), slot.At)
		turn, ok := a.pace.wait(ep.ID, *l, now, catchUp(*l)+burstMargin(*l))
		if ok {
			_ = sleep(ctx, turn.Sub(now))
			now = later(a.now(), turn)
			_ = sleep(ctx, a.pace.send(ep.ID, *l, now).Sub(now))
			return gate{}, false
		}
		if reserved {
			// This attempt wrote its slot already: it waits for the
			// pacer's next without a second write, here within the lead
			// or on a timer, and asks again.
			slot.At = turn
			continue
		}
		next, err := a.endpoints.ReserveSlot(ctx, ep.ID, *l, now)
		if err != nil {
			a.log.Warn("reserve a rate limit slot", "endpoint_id", ep.ID, "error", err)
			return gate{}, false
		}
		// Not before the pacer's next slot either: with no backlog in
		// the store, the new slot is now. Within the lead, the attempt
		// waits for it here and asks the pacer again.
		next.At = later(next.At, turn)
		slot, reserved = next, true
	}
}

// waitForSlot waits out a slot within the limit's Lead (and
// MaxInlineWait) in place; one further ahead is the workflow's wait, to
// Lead before it.
func (a *Activities) waitForSlot(ctx context.Context, l *store.RateLimit, slot store.Slot, now time.Time) (gate, bool) {
	ahead := slot.At.Sub(now)
	if ahead > l.Lead()+MaxInlineWait || sleep(ctx, ahead) != nil {
		return gate{wait: slot.At.Add(-l.Lead()), reason: delivery.WaitRateLimit, slot: &delivery.Slot{At: slot.At, Since: slot.Since}}, true
	}
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
// such a bunch out: each waits up to catchUp in place for the
// pacer's next slot; the rest are refused (throttle gives them new slots
// in the store). No store write, and nothing to wait for when timers are
// on time.
//
// Turns are spaced when they are given; the pacer also keeps a GCRA over
// the sends themselves, as they happen (send): an attempt that wakes for
// its turn late (a busy machine) would otherwise go so close to the next
// burst that the receiver sees one more than the burst within an
// interval.
type pacer struct {
	mu  sync.Mutex
	tat map[string]paced
}

// burstMargin is how much later than the rest of its burst the pacer
// lets a burst's last attempt go: a quarter of the interval, at most 5
// ms.
func burstMargin(l store.RateLimit) time.Duration {
	return min(l.Interval()/4, 5*time.Millisecond)
}

// paced is one endpoint's theoretical arrival times in the pacer, under
// the limit set at since: of the turns it gave (tat) and of the sends
// (sent).
type paced struct {
	tat, sent, since time.Time
}

// pacerSweep is the size at which the pacer drops the endpoints it no
// longer paces (their turns and sends all past).
const pacerSweep = 1024

// wait returns when the endpoint's next slot in this worker at now under
// l starts, and takes it if that is at most most ahead (ok).
func (p *pacer) wait(endpointID string, l store.RateLimit, now time.Time, most time.Duration) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.tat) >= pacerSweep {
		for id, e := range p.tat {
			if later(e.tat, e.sent).Before(now) {
				delete(p.tat, id)
			}
		}
	}
	e := p.entry(endpointID, l)
	if e.tat.Before(now) {
		e.tat = now
	}
	tat := e.tat.Add(l.Interval())
	at := l.SlotAt(tat, now)
	if l.Burst > 1 {
		// The burst's last goes burstMargin after the others, so the
		// one after it goes an interval and burstMargin after the
		// burst's first: a burst and one more do not reach the receiver
		// within one interval when the first of them is a little late.
		at = later(at, tat.Add(-time.Duration(l.Burst)*l.Interval()+burstMargin(l)))
	}
	if at.Sub(now) > most {
		return at, false
	}
	e.tat = tat
	p.tat[endpointID] = e
	return at, true
}

// send returns when an attempt to the endpoint whose turn has come may be
// sent at now under l, and counts it sent then: at once, unless the
// sends so far (some of them late for their turns) put this one in a
// burst that would be more than l.Burst within an interval, the burst's
// last burstMargin late, as the turns are. It waits at most catchUp.
func (p *pacer) send(endpointID string, l store.RateLimit, now time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entry(endpointID, l)
	tolerance := time.Duration(max(l.Burst, 1)-1) * l.Interval()
	if l.Burst > 1 {
		tolerance -= burstMargin(l)
	}
	at := later(now, e.sent.Add(-tolerance))
	if at.Sub(now) > catchUp(l) {
		at = now
	}
	e.sent = later(e.sent, at).Add(l.Interval())
	p.tat[endpointID] = e
	return at
}

// entry is the endpoint's record under l: a new one if it has none, or
// one kept under an earlier limit. p.mu is held.
func (p *pacer) entry(endpointID string, l store.RateLimit) paced {
	if p.tat == nil {
		p.tat = map[string]paced{}
	}
	e := p.tat[endpointID]
	if !e.since.Equal(l.Since) {
		e = paced{since: l.Since}
	}
	return e
}
