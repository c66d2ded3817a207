package store

import (
	"context"
	"time"
)

// Limits on an endpoint's rate limit.
const (
	MinRatePerSecond = 1
	MaxRatePerSecond = 10_000
)

// RateLimit caps how fast one endpoint receives attempts, summed over
// every worker sharing the store: at most Burst at once and PerSecond a
// second on average (GCRA, the generic cell rate algorithm). A nil
// *RateLimit is no limit.
type RateLimit struct {
	PerSecond int
	Burst     int
	// Since is when the limit took its current value (set by the store
	// on create and on every change of PerSecond or Burst). A slot
	// reserved under an earlier limit is void (Slot.Holds).
	Since time.Time
}

// Interval is the time between two slots at the limit's average rate.
func (l RateLimit) Interval() time.Duration {
	return time.Second / time.Duration(max(l.PerSecond, 1))
}

// MaxLead bounds Lead.
const MaxLead = 500 * time.Millisecond

// Lead is how long before its slot a delivery waiting for it wakes: the
// rest it waits out in its attempt, so a timer that fires late (a busy
// machine delays a workflow's timer and its first task by a few hundred
// milliseconds at times) still sends in the slot instead of losing it.
// 25 intervals at most, so the attempts waiting in place for one
// endpoint stay about 25, whatever its rate, and a worker holds about
// half a second's worth of its rate-limited attempts in its attempt slots.
func (l RateLimit) Lead() time.Duration {
	return min(MaxLead, 25*l.Interval())
}

// burst is Burst, at least 1.
func (l RateLimit) burst() time.Duration { return time.Duration(max(l.Burst, 1)) }

// SlotAt is the start of the slot whose reservation moved the endpoint's
// theoretical arrival time to tat, as seen at now: tat less Burst
// intervals, or now if that has passed.
func (l RateLimit) SlotAt(tat, now time.Time) time.Time {
	s := tat.Add(-l.burst() * l.Interval())
	if s.Before(now) {
		return now
	}
	return s
}

// Backlog is how many reserved slots are still ahead at now with the
// endpoint's theoretical arrival time at tat, and when the last of them
// starts (zero when none is ahead).
func (l RateLimit) Backlog(tat, now time.Time) (int, time.Time) {
	last := tat.Add(-l.burst() * l.Interval())
	if !last.After(now) {
		return 0, time.Time{}
	}
	iv := l.Interval()
	return int((last.Sub(now) + iv - 1) / iv), last
}

// Slot is a reservation of one attempt under an endpoint's rate limit:
// the attempt may start at At, under the limit set at Since.
type Slot struct {
	At    time.Time `json:"at"`
	Since time.Time `json:"since"`
}

// Holds reports whether the slot is still good under limit: the limit is
// the one it was reserved under.
func (s Slot) Holds(limit *RateLimit) bool {
	return limit != nil && s.Since.Equal(limit.Since)
}

// RateLimits keeps each rate-limited endpoint's theoretical arrival time
// (TAT), shared by every worker.
type RateLimits interface {
	// ReserveSlot reserves the endpoint's next slot under limit at now,
	// in one write, and returns it. A TAT kept under an earlier limit
	// (limit.Since is newer) starts again from now.
	ReserveSlot(ctx context.Context, endpointID string, limit RateLimit, now time.Time) (Slot, error)
	// RateTAT returns the endpoint's theoretical arrival time under the
	// limit set at since (zero if it reserved none under it).
	RateTAT(ctx context.Context, endpointID string, since time.Time) (time.Time, error)
}
