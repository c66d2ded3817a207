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

// sleepers chooses the probers of each endpoint's cooldown round and
// wakes the sleepers when its circuit closes.
type sleepers struct {
	mu     sync.Mutex
	rounds map[string]round // by endpoint ID
	waking map[string]bool  // a wake-up of the endpoint's waiting deliveries is running
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

// closed forgets endpointID's rounds and reports whether the caller should
// wake its waiting deliveries (false while another wake-up of them runs).
func (s *sleepers) closed(endpointID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.rounds, endpointID)
	if s.waking == nil {
		s.waking = map[string]bool{}
	}
	if s.waking[endpointID] {
		return false
	}
	s.waking[endpointID] = true
	return true
}

func (s *sleepers) woken(endpointID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waking, endpointID)
}

// wakeWaiting tells endpointID's waiting deliveries, in the background,
// that its circuit closed: each tries again within seconds instead of at
// the end of its sleep. Once wake.Settle has passed since the first list it
// looks again, if the circuit is still closed, for those visibility had
// not yet shown waiting.
func (a *Activities) wakeWaiting(endpointID string) {
	if a.temporal == nil || !a.sleepers.closed(endpointID) {
		return
	}
	go func() {
		defer a.sleepers.woken(endpointID)
		// Bounded by the sleep itself: past it the sleepers wake anyway. A
		// backlog of 100,000 takes longer than ten minutes to wake, as
		// fast as it drains.
		ctx, cancel := context.WithTimeout(context.Background(), a.circuitSleep)
		defer cancel()
		sig := delivery.RecoverSignal{By: "hookd", Reason: "circuit closed"}
		first := time.Now()
		n, err := wake.Paced(ctx, a.temporal, endpointID, sig)
		if err == nil {
			var late int
			late, err = wake.Again(ctx, a.temporal, endpointID, sig, first, a.wakeSettle, func(ctx context.Context) bool {
				return a.closedCircuit(ctx, endpointID)
			})
			n += late
		}
		if err != nil {
			a.log.Warn("wake deliveries after the circuit closed", "endpoint_id", endpointID, "woken", n, "error", err)
			return
		}
		a.log.Info("woke deliveries after the circuit closed", "endpoint_id", endpointID, "woken", n)
	}()
}

// closedCircuit reports whether endpointID's circuit is closed: if it
// opened again, the deliveries still waiting wait for its next close.
func (a *Activities) closedCircuit(ctx context.Context, endpointID string) bool {
	b, err := a.endpoints.Circuit(ctx, endpointID)
	return err == nil && b.IsClosed()
}
