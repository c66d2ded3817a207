package activities

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// inFlight returns how many attempts endpointID has in flight.
func (s *endpointShares) inFlight(endpointID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.byEndpoint[endpointID]; e != nil {
		return len(e.deadlines)
	}
	return 0
}

// An endpoint's share admits its limit; the rest get turns from the
// earliest deadline in flight on, spaced by timeout/limit; other endpoints
// are not touched; a released slot is taken again, and an endpoint with
// nothing in flight is forgotten.
func TestEndpointShareTurns(t *testing.T) {
	var a Activities
	LimitEndpoints(&a, 2)
	s := a.shares
	t0 := time.Unix(1_000_000, 0)
	const timeout = 10 * time.Second
	r1, _, ok, _ := s.take("ep_a", t0, timeout)
	require.True(t, ok)
	r2, _, ok, _ := s.take("ep_a", t0.Add(time.Second), timeout)
	require.True(t, ok)

	_, turn, ok, first := s.take("ep_a", t0.Add(2*time.Second), timeout)
	require.False(t, ok)
	assert.True(t, first, "the first refusal of the spell")
	assert.Equal(t, t0.Add(timeout+shareSlack), turn, "the earliest attempt in flight ends then")
	_, turn2, ok, first := s.take("ep_a", t0.Add(2*time.Second), timeout)
	require.False(t, ok)
	assert.False(t, first)
	assert.Equal(t, turn.Add(timeout/2), turn2, "turns are spaced by timeout/limit")

	_, _, ok, _ = s.take("ep_b", t0, timeout)
	assert.True(t, ok, "another endpoint has its own share")

	r1()
	r1() // idempotent
	assert.Equal(t, 1, s.inFlight("ep_a"))
	r3, _, ok, _ := s.take("ep_a", t0.Add(3*time.Second), timeout)
	require.True(t, ok, "a freed slot is taken again")
	r2()
	r3()
	assert.NotContains(t, s.byEndpoint, "ep_a", "nothing in flight: forgotten")

	var unbounded Activities
	LimitEndpoints(&unbounded, 0)
	for range 100 {
		_, _, ok, _ := unbounded.shares.take("ep_a", t0, timeout)
		require.True(t, ok)
	}
}

// With its share of attempts held by a receiver that never answers, an
// endpoint's next attempts are deferred at once, first attempt and retry
// alike: nothing sent, nothing counted, no slot held, and a turn about a
// timeout away. Another endpoint's attempt meanwhile is delivered.
func TestEndpointShareDefersTheRest(t *testing.T) {
	t.Parallel()
	var (
		mu       sync.Mutex
		received int
	)
	slow := newHostileReceiver(t, func(c net.Conn) {
		mu.Lock()
		received++
		mu.Unlock()
		hold(c)
	})
	fast := newServer(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	a := hostileActivities(t, slow.URL)
	eps := a.endpoints.(*fakeEndpoints)
	eps.endpoints["ep_fast"] = store.Endpoint{ID: "ep_fast", URL: fast.URL, Enabled: true}
	LimitEndpoints(a, 2)

	const timeout = 2 * time.Second
	req := request("ep_hostile", 2)
	req.Timeout = timeout
	var held sync.WaitGroup
	results := make(chan delivery.Attempt, 2)
	for range 2 {
		held.Go(func() { results <- a.attempt(context.Background(), req, 1, nil) })
	}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return received == 2 }, time.Second, 5*time.Millisecond)
	assert.Equal(t, 2, a.shares.inFlight("ep_hostile"))

	start := time.Now()
	at := a.attempt(context.Background(), req, 1, nil)
	assert.Less(t, time.Since(start), 100*time.Millisecond, "deferred at once")
	assert.Equal(t, delivery.OutcomeDeferred, at.Outcome)
	assert.Equal(t, delivery.WaitEndpointBusy, at.DelayReason)
	assert.WithinRange(t, at.NextAttempt, start.Add(timeout-200*time.Millisecond), start.Add(timeout+time.Second))

	in := delivery.RetryInput{Request: req, Prior: []delivery.Attempt{{Number: 1, Outcome: delivery.OutcomeRetryable, ErrorClass: "timeout"}}}
	v, err := activityEnv(a).ExecuteActivity(delivery.ActivityRetry, in)
	require.NoError(t, err, "a retry over the share completes without counting")
	var res delivery.Result
	require.NoError(t, v.Get(&res))
	assert.Equal(t, delivery.StatusPending, res.Status)
	assert.Equal(t, delivery.WaitEndpointBusy, res.WaitReason)
	assert.Len(t, res.Attempts, 1, "the deferral is not in the timeline")

	fastReq := request("ep_fast", 2)
	start = time.Now()
	assert.Equal(t, delivery.OutcomeSuccess, a.attempt(context.Background(), fastReq, 1, nil).Outcome)
	assert.Less(t, time.Since(start), time.Second)

	mu.Lock()
	assert.Equal(t, 2, received, "nothing more reached the busy receiver")
	mu.Unlock()
	held.Wait()
	close(results)
	for at := range results {
		assert.Equal(t, "timeout", at.ErrorClass)
	}
	assert.Equal(t, 0, a.shares.inFlight("ep_hostile"), "the slots are released")
	assert.Equal(t, delivery.OutcomeRetryable, a.attempt(context.Background(), req, 1, nil).Outcome, "then attempts go through again")
}
