package activities

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// The rate limit's gate: an endpoint without a limit reserves nothing; a
// burst goes at once and the rest are deferred to their slots, one
// interval apart; a delivery woken for a slot it holds goes without a new
// reservation (or waits for it again if woken early); a slot from an
// older limit is reserved again; an open circuit holds the delivery
// before it reserves anything.
func TestThrottle(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	since := now.Add(-time.Hour)
	limited := store.Endpoint{ID: "ep_1", Enabled: true, RateLimit: &store.RateLimit{PerSecond: 1, Burst: 2, Since: since}}
	eps := newFakeEndpoints(t, limited, store.Endpoint{ID: "ep_free", Enabled: true})
	a := newTestActivities(eps, nil, func() time.Time { return now })
	ctx := context.Background()
	req := request("ep_1", 1)

	assert.True(t, eps.admit(a, ctx, req, &store.Endpoint{ID: "ep_free", Enabled: true}, nil, now).allowed)
	assert.Zero(t, eps.reserves, "no limit, no reservation")

	var waits []time.Duration
	var slots []*delivery.Slot
	for range 5 {
		g := eps.admit(a, ctx, req, &limited, nil, now)
		if g.allowed {
			continue
		}
		assert.Equal(t, delivery.WaitRateLimit, g.reason)
		require.NotNil(t, g.slot)
		assert.Equal(t, g.wait, g.slot.At.Add(-limited.RateLimit.Lead()), "it wakes its lead before the slot")
		assert.True(t, g.slot.Since.Equal(since))
		waits = append(waits, g.slot.At.Sub(now))
		slots = append(slots, g.slot)
	}
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}, waits,
		"a burst of 2 went, the rest (further ahead than the lead) wait for their slots")
	assert.Equal(t, 5, eps.reserves)

	// Woken at its slot, it goes in it.
	at := slots[0].At
	a.now = func() time.Time { return at }
	assert.True(t, eps.admit(a, ctx, req, &limited, slots[0], at).allowed)
	assert.Equal(t, 5, eps.reserves, "the held slot is not reserved again")
	// Woken early (further ahead than its lead), it waits for the same
	// slot again.
	a.now = func() time.Time { return now }
	g := eps.admit(a, ctx, req, &limited, slots[1], now)
	assert.False(t, g.allowed)
	assert.Equal(t, slots[1].At.Add(-limited.RateLimit.Lead()), g.wait)
	assert.Equal(t, 5, eps.reserves)

	// A new limit voids the slot: it reserves again.
	changed := limited
	changed.RateLimit = &store.RateLimit{PerSecond: 1, Burst: 2, Since: now}
	eps.admit(a, ctx, req, &changed, slots[1], at)
	assert.Equal(t, 6, eps.reserves)
	// No limit any more: it goes at once.
	assert.True(t, eps.admit(a, ctx, req, &store.Endpoint{ID: "ep_1", Enabled: true}, slots[1], at).allowed)

	// An open circuit holds it before the limit is asked.
	eps.setBreaker("ep_1", circuit.Breaker{State: circuit.Open, Failures: 3, OpenUntil: at.Add(time.Minute), Cooldown: time.Minute})
	g = eps.admit(a, ctx, req, &limited, nil, at)
	assert.False(t, g.allowed)
	assert.Equal(t, delivery.WaitCircuitOpen, g.reason)
	assert.Equal(t, 6, eps.reserves)
}

// A slot within MaxInlineWait is slept out in the attempt itself.
func TestThrottleInline(t *testing.T) {
	now := time.Now()
	limited := store.Endpoint{ID: "ep_1", Enabled: true, RateLimit: &store.RateLimit{PerSecond: 100, Burst: 1, Since: now}}
	eps := newFakeEndpoints(t, limited)
	a := newTestActivities(eps, nil, nil)
	ctx := context.Background()
	req := request("ep_1", 1)
	require.True(t, eps.admit(a, ctx, req, &limited, nil, a.now()).allowed)
	start := time.Now()
	require.True(t, eps.admit(a, ctx, req, &limited, nil, a.now()).allowed, "10ms ahead: waited here")
	assert.GreaterOrEqual(t, time.Since(start), 5*time.Millisecond)
}

// The pacer spaces a bunch that goes together (timers fired late) to the
// limit: a burst at once, then one an interval, up to the most it may
// wait; past that it refuses, taking nothing. A limit changed since, or a
// quiet spell, starts it again.
func TestPacer(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l := store.RateLimit{PerSecond: 10, Burst: 2, Since: now.Add(-time.Hour)}
	ms := func(n int) time.Time { return now.Add(time.Duration(n) * time.Millisecond) }
	var p pacer
	wait := func(id string, l store.RateLimit, at time.Time) time.Duration {
		turn, ok := p.wait(id, l, at, 250*time.Millisecond)
		require.True(t, ok)
		return turn.Sub(at)
	}
	var waits []time.Duration
	for range 4 {
		waits = append(waits, wait("ep_1", l, now))
	}
	m := burstMargin(l)
	assert.Equal(t, 5*time.Millisecond, m)
	assert.Equal(t, []time.Duration{0, m, 100*time.Millisecond + m, 200*time.Millisecond + m}, waits,
		"a burst of 2, its last a margin after the first; then one an interval, an interval and the margin after the burst's first")
	for range 2 {
		turn, ok := p.wait("ep_1", l, now, 250*time.Millisecond)
		assert.False(t, ok, "300 ms is past the most")
		assert.Equal(t, ms(300).Add(m), turn, "the refused took nothing")
	}
	assert.Equal(t, 200*time.Millisecond+m, wait("ep_1", l, ms(100)))
	assert.Zero(t, wait("ep_2", l, now), "each endpoint its own")
	assert.Zero(t, wait("ep_1", l, now.Add(time.Second)), "quiet since")
	changed := l
	changed.Since = now
	assert.Zero(t, wait("ep_2", changed, now), "a new limit starts again")
}

// A bunch woken late past its slots goes a burst at once, then one an
// interval within the pacer's catch-up, waiting in place; each of the
// rest takes a new slot from the store, not before the pacer's next, and
// waits for it: in place within the limit's lead, then on a timer. Back
// in its slot, it goes.
func TestThrottlePacesALateBunch(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	since := now.Add(-time.Hour)
	limited := store.Endpoint{ID: "ep_1", Enabled: true, RateLimit: &store.RateLimit{PerSecond: 10, Burst: 2, Since: since}}
	lead, m := limited.RateLimit.Lead(), burstMargin(*limited.RateLimit)
	eps := newFakeEndpoints(t, limited)
	a := newTestActivities(eps, nil, func() time.Time { return now })
	ctx := context.Background()
	past := &delivery.Slot{At: now.Add(-time.Second), Since: since}
	went := 0
	var slots []*delivery.Slot
	for range 8 {
		g, wait := a.throttle(ctx, &limited, past)
		if !wait {
			went++
			continue
		}
		assert.Equal(t, g.slot.At.Add(-lead), g.wait, "it wakes its lead before its new slot")
		assert.True(t, g.slot.Since.Equal(since))
		slots = append(slots, g.slot)
	}
	// Turns at 0, the margin and 100 ms (and the margin) go; the next
	// four are refused, take new slots at 200-500 ms (and the margin),
	// within the lead, wait for them in place and go; the last's, at
	// 600 ms, is further ahead than the lead.
	assert.Equal(t, 7, went)
	require.Len(t, slots, 1)
	assert.Equal(t, 600*time.Millisecond+m, slots[0].At.Sub(now), "the store had no backlog: the pacer's next slot")
	assert.Equal(t, 5, eps.reserves, "each refused reserved a new slot")
	a.now = func() time.Time { return slots[0].At }
	_, wait := a.throttle(ctx, &limited, slots[0])
	assert.False(t, wait, "back in its slot, it goes")
	assert.Equal(t, 5, eps.reserves)
}

// An attempt that waits in place for its slot starts when it is sent:
// its duration, the receiver's latency in the health figures, leaves the
// wait out, and the signature's timestamp is the moment of sending.
func TestThrottleInlineWaitIsNotLatency(t *testing.T) {
	rc := newHeaderReceiver(t, "hookd-event-id", "evt_1")
	now := time.Now()
	limited := store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true, RateLimit: &store.RateLimit{PerSecond: 20, Burst: 1, Since: now}}
	a := newTestActivities(newFakeEndpoints(t, limited), nil, nil)
	req := request("ep_1", 1)
	require.Equal(t, delivery.OutcomeSuccess, a.attempt(context.Background(), req, 1, nil).Outcome)
	before := time.Now()
	at := a.attempt(context.Background(), req, 2, nil)
	require.Equal(t, delivery.OutcomeSuccess, at.Outcome, "%+v", at)
	waited := at.Start.Sub(before)
	require.GreaterOrEqual(t, waited, 20*time.Millisecond, "50 ms after the first: it waited in place")
	assert.Less(t, at.Duration, waited, "the wait is not the receiver's latency")
	ts := rc.requests()[1].Get("webhook-timestamp")
	assert.Equal(t, strconv.FormatInt(at.Start.Unix(), 10), ts)
}

// An attempt whose reads before its gate took time (it began long before
// it asks for its slot) waits for the slot from the clock as it is, not
// from when it began: it sends in its slot, not that much late.
func TestThrottleWaitsFromTheClockNow(t *testing.T) {
	since := time.Now().Add(-time.Hour)
	limited := store.Endpoint{ID: "ep_1", Enabled: true, RateLimit: &store.RateLimit{PerSecond: 10, Burst: 1, Since: since}}
	eps := newFakeEndpoints(t, limited)
	a := newTestActivities(eps, nil, nil)
	began := time.Now()
	slot := &delivery.Slot{At: began.Add(5 * time.Millisecond), Since: since}
	g := eps.admit(a, context.Background(), request("ep_1", 1), &limited, slot, began.Add(-115*time.Millisecond))
	require.True(t, g.allowed, "the slot is 5 ms ahead: waited out in place")
	assert.Less(t, time.Since(began), 80*time.Millisecond,
		"counted from when the attempt began, it would have waited 120 ms")
}

// The pacer's record of the sends: a send whose turn came goes at once,
// unless sends late for their turns would put it in a burst of more than
// Burst within an interval; then it waits until they would not, the
// burst's last a margin late. A limit of one at a time spaces sends an
// interval apart; a wait never exceeds the limit's lead.
func TestPacerSpacesSends(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ms := func(n int) time.Time { return now.Add(time.Duration(n) * time.Millisecond) }
	var p pacer
	l := store.RateLimit{PerSecond: 50, Burst: 5, Since: now.Add(-time.Hour)}
	var got []time.Duration
	// A burst's turns at 0 (and its last at the 5 ms margin); its first
	// send woke late, at 7; the next turn, an interval and the margin on.
	for _, at := range []int{1, 1, 1, 5, 7, 25} {
		got = append(got, p.send("ep_1", l, ms(at)).Sub(now))
	}
	want := []time.Duration{1, 1, 1, 5, 7, 26}
	for i := range want {
		want[i] *= time.Millisecond
	}
	assert.Equal(t, want, got, "the sixth waits until no 20 ms holds six sends")

	one := store.RateLimit{PerSecond: 50, Burst: 1, Since: now.Add(-time.Hour)}
	assert.Equal(t, ms(0), p.send("ep_2", one, ms(0)))
	assert.Equal(t, ms(30), p.send("ep_2", one, ms(30)), "late: it goes")
	assert.Equal(t, ms(50), p.send("ep_2", one, ms(45)), "an interval after the last")
	for range 6 {
		p.send("ep_2", one, ms(50))
	}
	assert.Equal(t, ms(50), p.send("ep_2", one, ms(50)), "never more than the lead")
	changed := one
	changed.Since = now
	assert.Equal(t, ms(51), p.send("ep_2", changed, ms(51)), "a new limit starts again")
}
