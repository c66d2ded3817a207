package activities

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
)

// DefaultDisabledPoll is how often a delivery to a disabled endpoint checks
// whether it was enabled again. Enabling the endpoint wakes its held
// deliveries at once (the API), so the check is only the bound when that
// wake-up is missed. An hour keeps a held backlog's checks cheap: checked
// every minute, a few thousand held deliveries keep a 2-core machine busy
// for as long as the endpoint stays off (hookd-bench -held-n;
// docs/performance.md).
const DefaultDisabledPoll = time.Hour

// gate is the admission of one attempt.
type gate struct {
	allowed bool
	quiet   bool // the circuit was closed with no failures: a success needs no write
	wait    time.Time
	reason  string
	slot    *delivery.Slot // the rate limit's slot the attempt waits for
}

// admit lets an attempt through if the endpoint takes attempts now
// (circuit.TakesAttempts). A refused attempt is deferred: nothing is sent
// and nothing counts against the delivery's budget. Only the attempt that
// may be the probe takes the circuit's row and decides again.
//
// b is the endpoint's circuit, read with it.
//
// An endpoint with a rate limit then gives the attempt its slot
// (throttle): held is the slot a woken delivery reserved before, if any.
// The limit is asked after the circuit and the switch, so a held-back
// delivery reserves nothing, and before a probe's lease is taken.
func (a *Activities) admit(ctx context.Context, req delivery.Request, ep *store.Endpoint, b circuit.Breaker, held *delivery.Slot, now time.Time) gate {
	v := circuit.TakesAttempts(ep.Enabled, req.Redrive != nil, b, a.circuit, now)
	switch {
	case v.Disabled:
		return a.disabled(now)
	case !v.Allowed:
		// While the cooldown or a probe's lease runs, the attempt is
		// deferred on what was read, without a write.
		return a.deferOpen(ep.ID, b, v.Wait, now)
	}
	if g, wait := a.throttle(ctx, ep, held); wait {
		return g
	}
	if v.Flowing() {
		return gate{allowed: true, quiet: b.Quiet()}
	}
	var adm circuit.Admission
	_, err := a.endpoints.UpdateCircuit(ctx, ep.ID, func(b circuit.Breaker) circuit.Breaker {
		b, adm = b.Admit(a.circuit, now, delivery.AttemptTimeout(req.Timeout)+probeSlack)
		return b
	})
	if err != nil {
		a.log.Warn("admit through circuit", "endpoint_id", ep.ID, "error", err)
		return gate{allowed: true}
	}
	if !adm.Allowed {
		return circuitOpen(adm.Wait, now)
	}
	return gate{allowed: true}
}

// breaker reads endpointID's circuit. A store that cannot say reads as
// closed (ok false): a store hiccup must not stop deliveries.
func (a *Activities) breaker(ctx context.Context, endpointID string) (circuit.Breaker, bool) {
	b, err := a.endpoints.Circuit(ctx, endpointID)
	if err != nil {
		a.log.Warn("read circuit", "endpoint_id", endpointID, "error", err)
		return circuit.Breaker{}, false
	}
	return b, true
}

// deferOpen defers an attempt that the circuit b of endpointID holds back
// until wait. While the circuit is open, only the round's probers wait for
// the cooldown's end; the rest sleep until the circuit closes wakes them
// (sleepers), with a jitter of a tenth so the sleeps stay spread.
func (a *Activities) deferOpen(endpointID string, b circuit.Breaker, wait, now time.Time) gate {
	if b.State != circuit.Open || a.sleepers.prober(endpointID, wait) {
		return circuitOpen(wait, now)
	}
	sleep := a.circuitSleep + time.Duration(float64(a.circuitSleep)/10*a.jitter())
	return gate{wait: now.Add(sleep), reason: delivery.WaitCircuitOpen}
}

// disabled holds an attempt to a disabled endpoint until its next check,
// jittered by a tenth so a held backlog's checks stay spread.
func (a *Activities) disabled(now time.Time) gate {
	poll := a.disabledPoll + time.Duration(float64(a.disabledPoll)/10*a.jitter())
	return gate{wait: now.Add(poll), reason: delivery.WaitDisabled}
}

// circuitOpen defers an attempt until wait, spreading the queued
// deliveries over a fifth of the cooldown so a recovering endpoint is not
// hit by all of them at once.
func circuitOpen(wait, now time.Time) gate {
	spread := time.Duration(rand.Int64N(int64(max(wait.Sub(now)/5, time.Second))))
	return gate{wait: wait.Add(spread), reason: delivery.WaitCircuitOpen}
}

// Admit answers a deferred delivery's wake-up: whether its endpoint takes
// attempts again. It only looks (it takes no probe and sends nothing;
// Retry does both when it attempts), and its input carries no body, so a
// delivery can wait for days without its history growing by the body on
// every wake-up. Anything it cannot tell lets the delivery attempt.
func (a *Activities) Admit(ctx context.Context, in delivery.AdmitInput) (delivery.Admission, error) {
	now := a.now()
	ep, err := a.endpoints.GetEndpoint(ctx, in.EndpointID)
	if err != nil {
		return delivery.Admission{}, nil // Retry reports a deleted endpoint or a store outage
	}
	b, _ := a.breaker(ctx, ep.ID)
	var g gate
	switch v := circuit.TakesAttempts(ep.Enabled, in.Redrive, b, a.circuit, now); {
	case v.Disabled:
		g = a.disabled(now)
	case !v.Allowed:
		g = a.deferOpen(ep.ID, b, v.Wait, now)
	default:
		return delivery.Admission{}, nil
	}
	a.log.Debug("delivery waits", "delivery_id", in.DeliveryID, "endpoint_id", in.EndpointID, "reason", g.reason, "until", g.wait)
	return delivery.Admission{WaitUntil: g.wait, WaitReason: g.reason}, nil
}

// probeSlack is added to the request timeout for a probe's lease.
const probeSlack = 10 * time.Second

// record feeds an attempt's result to the endpoint's circuit, and to
// when its failures began (circuit.Breaker.FailingSince), which
// auto-disables an endpoint that has failed for too long. A success on a
// quiet circuit changes nothing and writes nothing: the happy path costs
// one read. Failures that say nothing about the endpoint (hookd's own
// store, a refused destination) are not counted.
func (a *Activities) record(ctx context.Context, ep *store.Endpoint, g gate, at delivery.Attempt) {
	success := at.Outcome == delivery.OutcomeSuccess
	reachable := success || (at.Outcome == delivery.OutcomePermanent && at.Status != 0)
	counts := at.Outcome == delivery.OutcomeRetryable && at.ErrorClass != delivery.ClassInternal
	if (success && g.quiet) || (!reachable && !counts) {
		return
	}
	var (
		change circuit.Change
		after  circuit.Breaker
	)
	now := a.now()
	endpointID := ep.ID
	after, err := a.endpoints.UpdateCircuitAnnouncing(ctx, endpointID, func(b circuit.Breaker) (circuit.Breaker, []store.OpEvent) {
		b, change = b.Record(a.circuit, reachable, now)
		b = b.Failing(!success, now)
		switch change {
		case circuit.Opened:
			return b, []store.OpEvent{a.alert(opevents.EndpointUnhealthy, ep, b, now)}
		case circuit.Recovered:
			return b, []store.OpEvent{a.alert(opevents.EndpointRecovered, ep, b, now)}
		}
		return b, nil
	})
	if err != nil {
		a.log.Warn("record circuit result", "endpoint_id", endpointID, "error", err)
		return
	}
	switch change {
	case circuit.Opened, circuit.Reopened:
		a.log.Warn("circuit opened", "endpoint_id", endpointID, "failures", after.Failures, "cooldown", after.Cooldown, "reopened", change == circuit.Reopened)
	case circuit.Recovered:
		a.log.Info("circuit closed", "endpoint_id", endpointID)
		a.wakeWaiting(ctx, endpointID)
	}
	if !success && a.failingTooLong(after, now) {
		a.disable(ctx, ep, opevents.DisabledAuto)
	}
}

// alert is the operational event about an endpoint's circuit, b after
// the change at now, that the store records in its outbox in the
// transaction that writes b.
func (a *Activities) alert(eventType string, ep *store.Endpoint, b circuit.Breaker, now time.Time) store.OpEvent {
	return opevents.HealthEvent(eventType, opevents.Health{
		EndpointID: ep.ID, Reason: opevents.ReasonCircuit, At: now,
		Circuit: &opevents.Circuit{State: string(b.State), Failures: b.Failures, OpenUntil: b.OpenUntil},
	}, ep).Record()
}
