package activities

import (
	"context"
	"sync"
	"time"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/wake"
)

// ProbersPerCooldown is how many of an endpoint's deliveries deferred by
// its open circuit a worker process lets wake when the cooldown ends: one
// takes the probe, the others find it taken and wait for the next round.
// The rest sleep (CircuitSleep) and are woken when the circuit closes.
// A round therefore costs a handful of wake-ups whatever the backlog;
// were every deferred delivery to wake at every cooldown's end, a backlog
// of N would cost N wake-ups per round (docs/performance.md).
const ProbersPerCooldown = 8

// DefaultCircuitSleep is how long a deferred delivery that is not a
// prober sleeps. The circuit closing wakes it sooner; the sleep is only
// the bound if that wake-up is missed (the process that closed the
// circuit stopped, or visibility had not yet seen the delivery waiting).
const DefaultCircuitSleep = time.Hour

// sleepers chooses the probers of each endpoint's cooldown round.
type sleepers struct {
	mu     sync.Mutex
	rounds map[string]round // by endpoint ID
}

// round is one cooldown of an endpoint's circuit: it ends at until, and n
// deferred deliveries wake then.
type round struct {
	until time.Time
	n     int
}

// prober reports whether a delivery deferred until until (the end of
// endpointID's cooldown) wakes then, as one of the round's probers.
func (s *sleepers) prober(endpointID string, until time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rounds == nil {
		s.rounds = map[string]round{}
	}
	r := s.rounds[endpointID]
	if !r.until.Equal(until) {
		r = round{until: until}
	}
	r.n++
	s.rounds[endpointID] = r
	return r.n <= ProbersPerCooldown
}

// closed forgets endpointID's rounds: its circuit closed.
func (s *sleepers) closed(endpointID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.rounds, endpointID)
}

// wakeTimeout bounds the start of a wake-up from the attempt that closed
// the circuit.
const wakeTimeout = 10 * time.Second

// wakeWaiting tells endpointID's waiting deliveries that its circuit
// closed: it starts the endpoint's wake-up workflow (wake.Waker), or joins
// the one running, before the attempt that closed the circuit returns.
// The wake-up then outlives this process: each sleeper tries again within
// seconds instead of at the end of its sleep, and a second look
// wake.Settle later finds those visibility had not yet shown waiting.
func (a *Activities) wakeWaiting(ctx context.Context, endpointID string) {
	a.sleepers.closed(endpointID)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wakeTimeout)
	defer cancel()
	err := wake.NewWaker(a.temporal, 0, a.wakeSettle).Wake(ctx, endpointID, delivery.RecoverSignal{By: "hookd", Reason: "circuit closed", NotBefore: a.now()})
	if err != nil {
		// The sleepers wake at the end of their sleep (CircuitSleep).
		a.log.Warn("wake deliveries after the circuit closed", "endpoint_id", endpointID, "error", err)
		return
	}
	a.log.Info("waking deliveries after the circuit closed", "endpoint_id", endpointID)
}
