package e2e

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
)

// capped is a receiver with a capacity: it answers 429 to a request that
// would be its more-than-perSecond'th in the trailing second (its
// capacityWindow, a second less the tolerance of a real receiver's clock
// and of the scheduling of a shared test machine), 200 otherwise, and records when each request came and how many times each
// webhook-id was answered 200. While refusing is set it answers 422 to
// everything (dead-lettering what it gets), recording nothing.
type capped struct {
	perSecond int
	refusing  atomic.Bool
	mu        sync.Mutex
	arrivals  []time.Time
	tooMany   int
	ok        map[string]int
}

// capacityWindow is the "second" of a capped receiver.
const capacityWindow = 950 * time.Millisecond

func newCapped(t *testing.T, perSecond int) (*capped, string) {
	c := &capped{perSecond: perSecond, ok: map[string]int{}}
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c.refusing.Load() {
			w.WriteHeader(http.StatusUnprocessableEntity)
			return
		}
		w.WriteHeader(c.answer(r.Header.Get("webhook-id"), time.Now()))
	}))
	return c, srv.URL
}

// answer records a request at now and decides its status.
func (c *capped) answer(id string, now time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.arrivals = append(c.arrivals, now)
	recent := 0
	for _, at := range c.arrivals {
		if now.Sub(at) < capacityWindow {
			recent++
		}
	}
	if c.perSecond > 0 && recent > c.perSecond {
		c.tooMany++
		return http.StatusTooManyRequests
	}
	c.ok[id]++
	return http.StatusOK
}

// seen returns the arrivals in order, how many were refused with 429, and
// the 200 answers per webhook-id.
func (c *capped) seen() ([]time.Time, int, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ok := make(map[string]int, len(c.ok))
	for id, n := range c.ok {
		ok[id] = n
	}
	at := append([]time.Time(nil), c.arrivals...)
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	return at, c.tooMany, ok
}

// delivered waits until n distinct webhook-ids were answered 200.
func (c *capped) delivered(t *testing.T, n int, within time.Duration) {
	t.Helper()
	if !assert.Eventually(t, func() bool { _, _, ok := c.seen(); return len(ok) >= n }, within, 20*time.Millisecond) {
		at, tooMany, ok := c.seen()
		t.Fatalf("%d of %d delivered; %d arrivals, %d answered 429", len(ok), n, len(at), tooMany)
	}
}

// sendMany posts n events of eventType in batches and returns their
// delivery IDs (one endpoint each), in the order posted.
func (c *apiClient) sendMany(eventType string, n int) []string {
	c.t.Helper()
	var ids []string
	for start := 0; start < n; start += 100 {
		var batch []map[string]any
		for i := start; i < min(n, start+100); i++ {
			batch = append(batch, map[string]any{"type": eventType, "payload": map[string]int{"i": i}})
		}
		var res wire.EventBatchResults
		require.Equal(c.t, http.StatusOK, c.do("POST", "/v1/events/batch", map[string]any{"events": batch}, &res))
		for _, r := range res.Results {
			require.Equal(c.t, http.StatusAccepted, r.Status)
			require.Len(c.t, wire.Deref(r.Deliveries), 1)
			ids = append(ids, wire.Deref(r.Deliveries)[0].ID)
		}
	}
	return ids
}

// setRateLimit patches the endpoint's rate_limit (nil: none).
func (c *apiClient) setRateLimit(endpointID string, limit any) {
	c.t.Helper()
	require.Equal(c.t, http.StatusOK, c.do("PATCH", "/v1/endpoints/"+endpointID, map[string]any{"rate_limit": limit}, nil))
}

// rateHealth is an endpoint health's rate_limit.
type rateHealth = wire.RateLimitHealth

// rateHealth reads the endpoint health's rate_limit: nil when the health
// leaves it out (no limit).
func (c *apiClient) rateHealth(endpointID string) *rateHealth {
	c.t.Helper()
	var h health
	require.Equal(c.t, http.StatusOK, c.do("GET", "/v1/endpoints/"+endpointID+"/health", nil, &h))
	return wire.Optional(h.RateLimit)
}

// requireOnceEach checks that every delivery arrived exactly once, in one
// attempt: no attempt was spent waiting for the limit.
func requireOnceEach(t *testing.T, api *apiClient, ids []string, ok map[string]int) {
	t.Helper()
	require.Len(t, ok, len(ids))
	for id, n := range ok {
		require.Equal(t, 1, n, "webhook-id %s", id)
	}
	for _, id := range ids {
		d := api.waitDelivery(id, 10*time.Second)
		require.EqualValues(t, "delivered", d.Status, id)
		require.Equal(t, 1, d.Attempts, "%s: no attempt spent waiting", id)
	}
}

// A receiver that takes 5 requests a second and answers 429 beyond that
// sees no 429 from an endpoint limited to 5/s when 15 events come at once,
// and each arrives once in its first attempt, its duration_ms the
// receiver's latency without its wait for the slot; the same 15 to the
// same kind of receiver without the limit meet 429s.
func TestRateLimitSparesTheReceiver(t *testing.T) {
	const perSecond, n = 5, 15
	api := newAPI(t)
	limited, limitedURL := newCapped(t, perSecond)
	unlimited, unlimitedURL := newCapped(t, perSecond)
	limitedType, unlimitedType := "rate.capped."+uniq(), "rate.uncapped."+uniq()
	ep := api.createEndpoint(map[string]any{"url": limitedURL, "event_types": []string{limitedType}, "retry_schedule": []string{"1s"},
		"rate_limit": map[string]int{"per_second": perSecond}})
	api.createEndpoint(map[string]any{"url": unlimitedURL, "event_types": []string{unlimitedType}, "retry_schedule": []string{"1s", "1s", "1s"}})

	start := time.Now()
	ids := api.sendMany(limitedType, n)
	api.sendMany(unlimitedType, n)
	limited.delivered(t, n, 20*time.Second)
	at, tooMany, ok := limited.seen()
	t.Logf("limited to %d/s: %d deliveries over %s", perSecond, n, at[len(at)-1].Sub(at[0]).Round(time.Millisecond))
	require.Zero(t, tooMany, "the limited endpoint's receiver answered 429")
	require.GreaterOrEqual(t, at[len(at)-1].Sub(start), (n-1)*time.Second/perSecond, "15 at 5/s, burst 1, take 2.8 s")
	requireOnceEach(t, api, ids, ok)
	require.Equal(t, 1, api.rateHealth(ep.ID).Burst, "burst defaults to 1")
	// Each attempt waited out up to its lead (100 ms) before its slot in
	// place: that is hookd's time, not the receiver's latency.
	var durations []float64
	for _, id := range ids {
		d := api.waitDelivery(id, 10*time.Second)
		require.NotEmpty(t, d.Timeline, id)
		durations = append(durations, wire.Deref(d.Timeline[0].DurationMS))
	}
	sort.Float64s(durations)
	require.Less(t, durations[len(durations)/2], 50.0, "the median attempt's duration_ms, to a loopback receiver")

	require.Eventually(t, func() bool { _, tooMany, _ := unlimited.seen(); return tooMany > 0 }, 10*time.Second, 20*time.Millisecond,
		"without the limit, 15 at once overrun a receiver that takes 5/s")
}

// A limited endpoint's waiting deliveries show it: each is pending with
// wait_reason "rate limit", no attempt spent, and its slot as its
// next_attempt_at, the last of them the health's last_due_at. Raising or
// removing the limit applies to them: they go at once instead of in their
// slots.
func TestRateLimitChangeAppliesToWaiting(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit any
	}{
		{"raised", map[string]int{"per_second": 100, "burst": 10}},
		{"removed", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Enough that the old slots run well past the wake-up's
			// second look (delivery.WakeSettle), which finds a delivery
			// visibility did not yet show waiting at the first.
			const n = 12
			api := newAPI(t)
			rc, url := newCapped(t, 0)
			eventType := "rate.change." + uniq()
			ep := api.createEndpoint(map[string]any{"url": url, "event_types": []string{eventType}, "retry_schedule": []string{"1s"},
				"rate_limit": map[string]int{"per_second": 1}})
			ids := api.sendMany(eventType, n)
			rc.delivered(t, 1, 10*time.Second)

			// Once every delivery has taken its slot, the last of them is
			// the health's last due.
			var (
				h    *rateHealth
				last time.Time
			)
			require.Eventually(t, func() bool {
				last = lastSlot(t, api, ids)
				h = api.rateHealth(ep.ID)
				return !h.LastDueAt.IsZero() && h.LastDueAt.Sub(last).Abs() < 5*time.Millisecond
			}, 5*time.Second, 50*time.Millisecond, "the last waiting delivery's slot is the health's last due")
			require.Equal(t, 1, h.PerSecond)
			require.GreaterOrEqual(t, h.Waiting, n-3)
			require.WithinDuration(t, time.Now().Add((n-1)*time.Second), h.LastDueAt, 2*time.Second, "at 1/s, the last is due n-1 s after the first")

			changed := time.Now()
			api.setRateLimit(ep.ID, tc.limit)
			rc.delivered(t, n, 10*time.Second)
			at, _, ok := rc.seen()
			took := at[len(at)-1].Sub(changed)
			t.Logf("limit %s: the %d waiting arrived %s after the change (their slots ran to %s)", tc.name, n-1, took.Round(time.Millisecond), last.Sub(changed).Round(time.Millisecond))
			require.Less(t, took, delivery.WakeSettle+2*time.Second, "the waiting deliveries kept their old slots")
			requireOnceEach(t, api, ids, ok)
			if tc.limit == nil {
				require.Nil(t, api.rateHealth(ep.ID))
			}
		})
	}
}

// Test events take the limit too, and wait for their slots instead of
// being refused: three tests at once at 1/s are all sent, a second apart,
// each answering with its attempt.
func TestRateLimitCoversTestEvents(t *testing.T) {
	t.Parallel()
	const n = 3
	api := newAPI(t)
	rc, url := newCapped(t, 0)
	ep := api.createEndpoint(map[string]any{"url": url, "event_types": []string{"never.sent." + uniq()},
		"rate_limit": map[string]int{"per_second": 1}})
	var (
		wg      sync.WaitGroup
		results [n]testResult
		codes   [n]int
	)
	for i := range n {
		wg.Go(func() { codes[i] = api.do("POST", "/v1/endpoints/"+ep.ID+"/test", nil, &results[i]) })
	}
	wg.Wait()
	for i, res := range results {
		require.Equal(t, http.StatusOK, codes[i], "test %d: %+v", i, res)
		require.EqualValues(t, "success", res.Outcome)
	}
	at, _, _ := rc.seen()
	require.Len(t, at, n)
	for i := 1; i < len(at); i++ {
		// Each goes in its own slot, a second after the last: the gap at
		// the receiver is a second less what one send's way there took
		// longer than the next's on a loaded machine.
		require.GreaterOrEqual(t, at[i].Sub(at[i-1]), 850*time.Millisecond, "1/s")
	}
}

// lastSlot checks the deliveries that wait: pending, for "rate limit",
// with no attempt spent and a next_attempt_at; it returns the latest.
func lastSlot(t *testing.T, api *apiClient, ids []string) time.Time {
	var last time.Time
	for _, id := range ids {
		var d deliveryState
		require.Equal(t, http.StatusOK, api.do("GET", "/v1/deliveries/"+id, nil, &d))
		if d.Status != "pending" || d.WaitReason == "" {
			continue
		}
		require.EqualValues(t, "rate limit", d.WaitReason)
		require.Zero(t, d.Attempts, "no attempt spent waiting")
		require.NotZero(t, d.NextAttemptAt)
		if d.NextAttemptAt.After(last) {
			last = d.NextAttemptAt
		}
	}
	return last
}

// A receiver's 429 with Retry-After still pushes its delivery back on a
// limited endpoint: the wait is the receiver's, not the next slot.
func TestRateLimitKeepsRetryAfter(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := retryAfterOnce(t)
	eventType := "rate.retryafter." + uniq()
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{eventType}, "retry_schedule": []string{"1s"},
		"rate_limit": map[string]int{"per_second": 50}})
	a := api.send(`{"type":"` + eventType + `","payload":{}}`)
	d := api.waitDelivery(a.Deliveries[0].ID, 15*time.Second)
	require.EqualValues(t, "delivered", d.Status)
	require.EqualValues(t, "retry-after", d.Timeline[0].DelayReason)
	hits := rc.Hits()
	require.Len(t, hits, 2)
	require.GreaterOrEqual(t, hits[1].At.Sub(hits[0].At), 1900*time.Millisecond)
}

// 200 dead letters redriven at once to an endpoint limited to 20/s with
// burst 2 arrive at the limit: no more than 2 in a 20 ms window (bar the
// stalls of a busy process, below), 20/s (+5%, -30%), each once in one
// attempt.
func TestRedriveToLimitedEndpoint(t *testing.T) {
	const n, perSecond, burst = 200, 20, 2
	api := newAPI(t)
	rc, url := newCapped(t, 0)
	rc.refusing.Store(true)
	eventType := "rate.redrive." + uniq()
	ep := api.createEndpoint(map[string]any{"url": url, "event_types": []string{eventType}, "retry_schedule": []string{"1s"}})
	ids := api.sendMany(eventType, n)
	require.Eventually(t, func() bool {
		var h health
		return api.do("GET", "/v1/endpoints/"+ep.ID+"/health", nil, &h) == http.StatusOK && h.DeadLetters == n
	}, 60*time.Second, time.Second)

	api.setRateLimit(ep.ID, map[string]int{"per_second": perSecond, "burst": burst})
	rc.refusing.Store(false)
	var job wire.RedriveStarted
	require.Equal(t, http.StatusAccepted, api.do("POST", "/v1/dead-letters/redrive", map[string]any{"endpoint_id": ep.ID, "rate": 1000}, &job))
	require.EqualValues(t, n, job.Matched)
	stalls := watchStalls(t)
	rc.delivered(t, n, 60*time.Second)
	at, _, ok := rc.seen()
	excess, most, excused := overBurst(at, 20*time.Millisecond, burst, stalls.stalled)
	span := at[len(at)-1].Sub(at[0])
	// The redrive's runs start over the first seconds on a busy machine:
	// the backlog, and so the limit's rate, is certain from the first
	// quarter on.
	steady := at[n/4:]
	rate := float64(len(steady)-1) / steady[len(steady)-1].Sub(steady[0]).Seconds()
	t.Logf("redrive of %d at %d/s burst %d: %s first to last, %.2f/s from the first quarter on, at most %d in 20 ms; %d over the burst, %d of them just after a stall of this process",
		n, perSecond, burst, span.Round(time.Millisecond), rate, most, excess+excused, excused)
	// A busy runtime (hookd, its Temporal and this receiver in one
	// process) also runs woken goroutines late, together, where no
	// ticker sees it: a few over the burst, never a flood.
	require.LessOrEqual(t, excess, n/20, "arrivals over the burst in their 20 ms window, not after a stall")
	require.LessOrEqual(t, most, 3*burst, "arrivals in a 20 ms window")
	require.LessOrEqual(t, rate, perSecond*1.05, "the rate over the redrive")
	require.GreaterOrEqual(t, rate, perSecond*0.7, "the rate over the redrive (late timers on a busy machine slow it: each worker spaces its sends from the last it made)")
	require.Len(t, ok, n)
	for id, count := range ok {
		require.Equal(t, 1, count, "webhook-id %s", id)
	}
	for _, id := range ids[n-10:] { // the last redriven waited longest
		d := api.waitDelivery(id, 10*time.Second)
		require.EqualValues(t, "delivered", d.Status)
		require.Equal(t, 2, d.Attempts, "%s: the dead-lettering attempt and the redrive's, none spent waiting", id)
	}
}

// overBurst counts the arrivals (sorted) that come after burst others in
// their window of width w, and the most in any window. An arrival that
// excuse(d) excuses is counted apart.
func overBurst(at []time.Time, w time.Duration, burst int, excuse func(time.Time) bool) (excess, most, excused int) {
	lo := 0
	for hi := range at {
		for at[hi].Sub(at[lo]) >= w {
			lo++
		}
		if hi-lo+1 > burst {
			if excuse(at[hi]) {
				excused++
			} else {
				excess++
			}
		}
		most = max(most, hi-lo+1)
	}
	return excess, most, excused
}

// stalls records when the test's process stood still (a 2 ms ticker that
// did not tick for over 20 ms). hookd and the test's receivers share the
// process: requests sent apart during a stall arrive together after it,
// on a busy machine. The bench, its receiver in a process of its own,
// shows hookd's spacing without them.
type stalls struct {
	mu    sync.Mutex
	spans [][2]time.Time
}

// watchStalls records the process's stalls until the test ends.
func watchStalls(t *testing.T) *stalls {
	s := &stalls{}
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		last := time.Now()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				now = time.Now()
				if now.Sub(last) > 20*time.Millisecond {
					s.mu.Lock()
					s.spans = append(s.spans, [2]time.Time{last, now})
					s.mu.Unlock()
				}
				last = now
			}
		}
	}()
	return s
}

// stalled reports whether at is during a stall or within 20 ms after it.
func (s *stalls) stalled(at time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sp := range s.spans {
		if !at.Before(sp[0]) && !at.After(sp[1].Add(20*time.Millisecond)) {
			return true
		}
	}
	return false
}

// A delivery waiting for its slot (its start delayed to it) whose event is
// expunged meanwhile ends expunged when the slot comes and is never sent;
// the deliveries before it go as they would.
func TestRateLimitExpungeOfAWaitingDelivery(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc, url := newCapped(t, 0)
	eventType := "rate.expunge." + uniq()
	api.createEndpoint(map[string]any{"url": url, "event_types": []string{eventType}, "rate_limit": map[string]int{"per_second": 1}})
	var events []accepted
	for i := range 3 {
		events = append(events, api.send(fmt.Sprintf(`{"event_id":"evt_rate_expunge_%d_%s","type":%q,"payload":{"i":%d}}`, i, uniq(), eventType, i)))
	}
	last := events[2]
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/events/"+last.EventID+"/expunge", map[string]any{"reason": "erasure request"}, nil))
	d := api.waitDelivery(last.Deliveries[0].ID, 10*time.Second)
	require.EqualValues(t, "expunged", d.Status)
	require.Zero(t, d.Attempts, "never attempted")
	rc.delivered(t, 2, 10*time.Second)
	// Its slot is a second after the second's: past it, it still has not
	// been sent.
	require.Never(t, func() bool {
		_, _, ok := rc.seen()
		return ok[last.Deliveries[0].ID] > 0
	}, 2*time.Second, 100*time.Millisecond, "the expunged event's delivery reached the receiver")
	_, _, ok := rc.seen()
	require.Len(t, ok, 2)
}
