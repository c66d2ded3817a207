// Package circuit is the per-endpoint circuit breaker's state machine. It
// does no I/O: the endpoint store keeps each endpoint's Breaker, shared by
// every worker and surviving restarts, and applies these transitions inside
// a transaction.
package circuit

import "time"

// State is a breaker's state.
type State string

// Breaker states.
const (
	Closed   State = "closed"    // attempts flow
	Open     State = "open"      // attempts wait until the cooldown ends
	HalfOpen State = "half_open" // one probe is in flight
)

// Policy tunes a breaker.
type Policy struct {
	Threshold    int           // consecutive retryable failures that open the circuit
	BaseCooldown time.Duration // the first open period
	MaxCooldown  time.Duration // the cap as it doubles on each re-open
}

// DefaultPolicy is the tuning the product promises: five failures, a 60s
// cooldown doubling up to 10 minutes. A function, so no process can change
// the default another server in it relies on.
func DefaultPolicy() Policy {
	return Policy{Threshold: 5, BaseCooldown: 60 * time.Second, MaxCooldown: 10 * time.Minute}
}

// Breaker is one endpoint's circuit.
type Breaker struct {
	State    State
	Failures int // consecutive retryable failures
	// OpenUntil is when an open circuit lets its probe through.
	OpenUntil time.Time
	// Cooldown is the length of the current (or last) open period.
	Cooldown time.Duration
	// ProbeUntil is when a half-open probe's lease ends; after it another
	// attempt may take the probe (the first prober died).
	ProbeUntil time.Time
	// FailingSince is when the endpoint's attempts began failing with no
	// success since (zero when the last attempt succeeded): what
	// auto-disable measures. Record keeps it; Failing sets and clears it.
	FailingSince time.Time
}

// Failing records whether an attempt at now failed (any failure that is
// the receiver's, permanent ones included) or succeeded, for
// FailingSince.
func (b Breaker) Failing(failed bool, now time.Time) Breaker {
	switch {
	case !failed:
		b.FailingSince = time.Time{}
	case b.FailingSince.IsZero():
		b.FailingSince = now
	}
	return b
}

// IsClosed reports whether the breaker lets attempts flow: closed, or
// never written.
func (b Breaker) IsClosed() bool {
	return b.State == Closed || b.State == ""
}

// Quiet reports whether the breaker is closed with no failures counted:
// the common case, in which a success changes nothing and needs no write.
func (b Breaker) Quiet() bool {
	return b.IsClosed() && b.Failures == 0 && b.FailingSince.IsZero()
}

// Admission is the answer to one attempt asking to go through.
type Admission struct {
	Allowed bool
	Probe   bool      // the attempt is the half-open probe
	Wait    time.Time // when to ask again if not allowed
}

// Admit decides whether an attempt may be sent now. A probe holds a lease
// of length lease; while it is out, other attempts are told to ask again a
// quarter of the base cooldown later, by when the probe has usually
// answered.
func (b Breaker) Admit(p Policy, now time.Time, lease time.Duration) (Breaker, Admission) {
	switch b.State {
	case Open:
		if now.Before(b.OpenUntil) {
			return b, Admission{Wait: b.OpenUntil}
		}
	case HalfOpen:
		if now.Before(b.ProbeUntil) {
			return b, Admission{Wait: minTime(b.ProbeUntil, now.Add(p.BaseCooldown/4))}
		}
	default:
		return b, Admission{Allowed: true}
	}
	// The cooldown is over (or the last probe's lease lapsed): this
	// attempt is the probe.
	b.State, b.ProbeUntil = HalfOpen, now.Add(lease)
	return b, Admission{Allowed: true, Probe: true}
}

// Change is what a recorded result did to the breaker.
type Change int

// Changes worth telling operators about.
const (
	Unchanged Change = iota
	Opened           // closed -> open: the endpoint is unhealthy
	Reopened         // the half-open probe failed; the cooldown doubled
	Recovered        // open or half-open -> closed
)

// Record applies an attempt's result. reachable means the endpoint
// answered in a way that proves it is up (2xx or a permanent 4xx); a
// retryable failure counts towards opening the circuit.
func (b Breaker) Record(p Policy, reachable bool, now time.Time) (Breaker, Change) {
	if reachable {
		was := b.State
		b = Breaker{State: Closed, FailingSince: b.FailingSince}
		if was == Open || was == HalfOpen {
			return b, Recovered
		}
		return b, Unchanged
	}
	b.Failures++
	switch {
	case b.State == Open:
		// An attempt that was in flight when the circuit opened: counted,
		// but it says nothing new.
		return b, Unchanged
	case b.State == HalfOpen:
		b.Cooldown = min(max(2*b.Cooldown, p.BaseCooldown), p.MaxCooldown)
		b.State, b.OpenUntil, b.ProbeUntil = Open, now.Add(b.Cooldown), time.Time{}
		return b, Reopened
	case b.Failures >= p.Threshold:
		b.Cooldown = p.BaseCooldown
		b.State, b.OpenUntil = Open, now.Add(b.Cooldown)
		return b, Opened
	default:
		b.State = Closed
		return b, Unchanged
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
