package delivery

import (
	"fmt"
	"time"
)

// DefaultSchedule returns the delay before each retry when an endpoint sets
// none: eight attempts over about 41 hours. Each call returns a fresh
// slice, so no caller can change another's default.
func DefaultSchedule() []time.Duration {
	return []time.Duration{
		30 * time.Second, 2 * time.Minute, 10 * time.Minute,
		time.Hour, 4 * time.Hour, 12 * time.Hour, 24 * time.Hour,
	}
}

// Schedule is the retry schedule a delivery to an endpoint follows: the
// endpoint's own, or DefaultSchedule when it sets none.
func Schedule(endpoint []time.Duration) []time.Duration {
	if len(endpoint) == 0 {
		return DefaultSchedule()
	}
	return endpoint
}

// AttemptTimeout is the timeout of one HTTP attempt: the endpoint's (or
// request's) own, or DefaultTimeout when it sets none. The one place that
// default applies.
func AttemptTimeout(timeout time.Duration) time.Duration {
	if timeout <= 0 {
		return DefaultTimeout
	}
	return timeout
}

// Limits on per-endpoint schedules and timeouts.
const (
	MinRetries     = 1
	MaxRetries     = 10
	MinRetryDelay  = time.Second
	MaxRetryDelay  = 24 * time.Hour
	DefaultTimeout = 15 * time.Second
	MinTimeout     = time.Second
	MaxTimeout     = 60 * time.Second
	// MaxRetryAfter caps a receiver's Retry-After.
	MaxRetryAfter = 24 * time.Hour
	// Jitter is the relative spread applied to each scheduled delay.
	Jitter = 0.2
)

// ValidateSchedule checks a per-endpoint retry schedule.
func ValidateSchedule(s []time.Duration) error {
	if len(s) < MinRetries || len(s) > MaxRetries {
		return fmt.Errorf("must have %d to %d intervals, got %d", MinRetries, MaxRetries, len(s))
	}
	for i, d := range s {
		if d < MinRetryDelay || d > MaxRetryDelay {
			return fmt.Errorf("interval %d is %s, must be between %s and %s", i, d, MinRetryDelay, MaxRetryDelay)
		}
	}
	return nil
}

// ValidateTimeout checks a per-endpoint request timeout.
func ValidateTimeout(d time.Duration) error {
	if d < MinTimeout || d > MaxTimeout {
		return fmt.Errorf("%s is not between %s and %s", d, MinTimeout, MaxTimeout)
	}
	return nil
}

// Span is the longest a delivery on schedule can run before it is
// exhausted: every delay at its jitter's maximum plus every attempt at its
// timeout. Waits hookd does not schedule (a Retry-After, an open circuit,
// a disabled endpoint) come on top.
func Span(schedule []time.Duration, timeout time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range schedule {
		sum += d
	}
	return sum + time.Duration(float64(sum)*Jitter) + time.Duration(len(schedule)+1)*timeout
}
