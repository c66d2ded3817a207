package activities

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// firstAttempt runs the FirstAttempt activity in Temporal's test
// environment and returns the attempt it reports.
func firstAttempt(t *testing.T, a *Activities, req delivery.Request) delivery.Attempt {
	t.Helper()
	v, err := activityEnv(a).ExecuteActivity(delivery.ActivityFirstAttempt, req)
	require.NoError(t, err)
	var at delivery.Attempt
	require.NoError(t, v.Get(&at))
	return at
}

// Consecutive retryable failures open the circuit at the policy's
// threshold; while it is open an attempt is deferred to the cooldown's end
// (plus a spread) and sends nothing.
func TestGateOpensAndDefers(t *testing.T) {
	rc := newScripted(t, 503)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := newTestActivities(eps, nil, func() time.Time { return now })
	for i := range testPolicy.Threshold {
		at := firstAttempt(t, a, request("ep_1", 3))
		assert.Equal(t, delivery.OutcomeRetryable, at.Outcome, "attempt %d", i+1)
	}
	b := eps.breaker("ep_1")
	require.Equal(t, circuit.Open, b.State)
	assert.Equal(t, now.Add(testPolicy.BaseCooldown), b.OpenUntil)

	writes := eps.writes
	at := firstAttempt(t, a, request("ep_1", 3))
	assert.Equal(t, delivery.OutcomeDeferred, at.Outcome)
	assert.Equal(t, "circuit open", at.DelayReason)
	assert.Equal(t, writes, eps.writes, "deferred on what was read: no write")
	assert.False(t, at.NextAttempt.Before(b.OpenUntil), "not before the cooldown ends")
	assert.True(t, at.NextAttempt.Before(b.OpenUntil.Add(testPolicy.BaseCooldown/5)), "within a fifth of it after")
	assert.Len(t, rc.seen(), testPolicy.Threshold, "the deferred attempt sent nothing")
	assert.Equal(t, b, eps.breaker("ep_1"), "a deferral leaves the breaker alone")
}

// After the cooldown one attempt is the probe (its lease is the request
// timeout plus slack, and others wait meanwhile); its success closes the
// circuit.
func TestGateProbeCloses(t *testing.T) {
	rc := newScripted(t, 200)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", URL: rc.URL, Enabled: true})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	eps.setBreaker("ep_1", circuit.Breaker{State: circuit.Open, Failures: 3, OpenUntil: now, Cooldown: time.Minute})
	a := newTestActivities(eps, nil, func() time.Time { return now })
	req := request("ep_1", 3)

	g := eps.admit(a, context.Background(), req, &store.Endpoint{ID: "ep_1", Enabled: true}, nil, now)
	require.True(t, g.allowed)
	held := eps.breaker("ep_1")
	assert.Equal(t, circuit.HalfOpen, held.State)
	assert.Equal(t, now.Add(req.Timeout+probeSlack), held.ProbeUntil)
	writes := eps.writes
	other := eps.admit(a, context.Background(), req, &store.Endpoint{ID: "ep_1", Enabled: true}, nil, now)
	assert.False(t, other.allowed, "one probe at a time")
	assert.Equal(t, writes, eps.writes, "while the probe's lease runs, others are deferred without a write")

	eps.setBreaker("ep_1", circuit.Breaker{State: circuit.Open, Failures: 3, OpenUntil: now, Cooldown: time.Minute})
	at := firstAttempt(t, a, req)
	assert.Equal(t, delivery.OutcomeSuccess, at.Outcome)
	assert.Equal(t, circuit.Breaker{State: circuit.Closed}, eps.breaker("ep_1"))
}

// record counts what says something about the endpoint: a success on a
// quiet circuit writes nothing; hookd's own failures and refused
// destinations do not count; a permanent 4xx proves the endpoint is up.
func TestGateRecord(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for name, c := range map[string]struct {
		before circuit.Breaker
		gate   gate
		at     delivery.Attempt
		after  circuit.Breaker
		writes int
	}{
		"success on a quiet circuit": {
			gate: gate{allowed: true, quiet: true}, at: delivery.Attempt{Outcome: delivery.OutcomeSuccess, Status: 200},
		},
		"success after failures": {
			before: circuit.Breaker{State: circuit.Closed, Failures: 2}, gate: gate{allowed: true},
			at: delivery.Attempt{Outcome: delivery.OutcomeSuccess, Status: 200}, after: circuit.Breaker{State: circuit.Closed}, writes: 1,
		},
		"hookd's own failure": {
			gate: gate{allowed: true, quiet: true}, at: delivery.Attempt{Outcome: delivery.OutcomeRetryable, ErrorClass: "internal"},
		},
		"refused destination": {
			gate: gate{allowed: true, quiet: true}, at: delivery.Attempt{Outcome: delivery.OutcomePermanent, ErrorClass: "refused"},
		},
		"retryable failure": {
			gate: gate{allowed: true, quiet: true}, at: delivery.Attempt{Outcome: delivery.OutcomeRetryable, Status: 503, ErrorClass: "http_5xx"},
			after: circuit.Breaker{State: circuit.Closed, Failures: 1, FailingSince: now}, writes: 1,
		},
		"permanent 4xx closes an open circuit": {
			before: circuit.Breaker{State: circuit.HalfOpen, Failures: 3, Cooldown: time.Minute, FailingSince: now.Add(-time.Hour)}, gate: gate{allowed: true},
			at: delivery.Attempt{Outcome: delivery.OutcomePermanent, Status: 404}, after: circuit.Breaker{State: circuit.Closed, FailingSince: now.Add(-time.Hour)}, writes: 1,
		},
		"permanent 4xx on a quiet circuit starts the failing period": {
			gate: gate{allowed: true, quiet: true}, at: delivery.Attempt{Outcome: delivery.OutcomePermanent, Status: 404},
			after: circuit.Breaker{State: circuit.Closed, FailingSince: now}, writes: 1,
		},
		"success ends the failing period": {
			before: circuit.Breaker{State: circuit.Closed, FailingSince: now.Add(-time.Hour)}, gate: gate{allowed: true},
			at: delivery.Attempt{Outcome: delivery.OutcomeSuccess, Status: 200}, after: circuit.Breaker{State: circuit.Closed}, writes: 1,
		},
	} {
		t.Run(name, func(t *testing.T) {
			eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", Enabled: true})
			eps.setBreaker("ep_1", c.before)
			a := newTestActivities(eps, nil, func() time.Time { return now })
			a.record(context.Background(), &store.Endpoint{ID: "ep_1", Enabled: true}, c.gate, c.at)
			assert.Equal(t, c.after, eps.breaker("ep_1"))
			assert.Equal(t, c.writes, eps.circuitWrites())
		})
	}
}

// A wake-up lets the delivery attempt when the store cannot say; a
// redrive goes through a disabled endpoint.
func TestGateFailsOpenAndLetsRedrivesThrough(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_1", Enabled: true})
	eps.setBreaker("ep_1", circuit.Breaker{State: circuit.Open, Failures: 3, OpenUntil: now.Add(time.Hour), Cooldown: time.Hour})
	a := newTestActivities(eps, nil, func() time.Time { return now })
	ctx := context.Background()
	in := delivery.AdmitInput{DeliveryID: "dlv_1", EndpointID: "ep_1"}
	adm, err := a.Admit(ctx, in)
	require.NoError(t, err)
	assert.Equal(t, delivery.WaitCircuitOpen, adm.WaitReason, "the open circuit holds it")
	eps.readErr = errStore
	adm, err = a.Admit(ctx, in)
	require.NoError(t, err)
	assert.Equal(t, delivery.Admission{}, adm, "a circuit the store cannot read lets it attempt")

	eps.readErr = nil
	eps.setBreaker("ep_1", circuit.Breaker{State: circuit.Closed})
	req := request("ep_1", 1)
	disabled := &store.Endpoint{ID: "ep_1", Enabled: false}
	g := eps.admit(a, ctx, req, disabled, nil, now)
	assert.False(t, g.allowed)
	assert.Equal(t, now.Add(DefaultDisabledPoll), g.wait)
	req.Redrive = &delivery.Redrive{By: "op", At: now}
	assert.True(t, eps.admit(a, ctx, req, disabled, nil, now).allowed)
}
