package scaleout

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/app"
)

// TestRateLimitAcrossServes: two `hookd serve` wirings (app.StartServe,
// API and worker each, in this process) on one PostgreSQL and one
// Temporal server share an endpoint limited to 20/s with burst 2. Both
// send (each names itself in its User-Agent), and the sum keeps the
// limit over the run: 200 events posted at once, half through each API,
// arrive at 20/s (+5%, -30%) from first to last, each once, and no
// second carries more than the limit and its burst, with the allowance
// below for how late the first arrive and a timer fires.
func TestRateLimitAcrossServes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Temporal and PostgreSQL; skipped with -short")
	}
	const n, perSecond, burst = 200, 20, 2
	cfg := inProcessConfig(t)
	cfg.API, cfg.Worker = true, true
	ctx := context.Background()
	var apis []*apiClient
	for _, name := range []string{"serve-a", "serve-b"} {
		c := cfg
		c.Version = name
		s, err := app.StartServe(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Stop(ctx) })
		apis = append(apis, &apiClient{t: t, base: s.HTTPURL, key: cfg.APIKeys[0]})
	}

	rc := newArrivals(t)
	var ep wire.Endpoint
	if code := apis[0].do("POST", "/v1/endpoints", map[string]any{"url": rc.URL, "rate_limit": map[string]int{"per_second": perSecond, "burst": burst}}, &ep); code != http.StatusCreated {
		t.Fatalf("create endpoint: %d", code)
	}
	posted := time.Now() // no slot is before this
	var wg sync.WaitGroup
	for i, api := range apis {
		wg.Go(func() { api.sendEventsFrom(i*n/2, n/2) })
	}
	wg.Wait()
	deadline := time.Now().Add(time.Minute)
	for rc.count() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d delivered", rc.count(), n)
		}
		time.Sleep(20 * time.Millisecond)
	}

	at, by, dup := rc.seen()
	// The store's slots bound the sum over the run: 200 at 20/s with a
	// burst of 2 span at least 9.9 s, where each serve sending at the
	// limit on its own would take half that.
	rate := float64(n-burst) / at[n-1].Sub(at[0]).Seconds()
	// The first deliveries' slots are the first post's moment, but they
	// arrive later, by a start and an attempt: the second that begins at
	// the first arrival also holds the slots of that delay after its
	// end. Two more cover a timer a busy machine fires late (each worker
	// spaces its own late deliveries, not the other's); at most 8 for the
	// delay keeps a serve sending at the whole limit on its own (40 in a
	// second) a failure.
	interval := time.Second / perSecond
	firstLate := at[0].Sub(posted)
	allowed := perSecond + burst + 2 + min(int((firstLate+interval-1)/interval), 8)
	t.Logf("two serves at %d/s burst %d: %d arrivals over %s, %.2f/s, at most %d in a second (%d allowed, the first %s after the post), %d in 50 ms; sent by %v",
		perSecond, burst, n, at[n-1].Sub(at[0]).Round(time.Millisecond), rate, mostWithin(at, time.Second), allowed, firstLate.Round(time.Millisecond), mostWithin(at, 50*time.Millisecond), by)
	if dup != 0 {
		t.Errorf("%d duplicate requests", dup)
	}
	if len(by) != 2 {
		t.Errorf("sent by %v: want both serves", by)
	}
	if most := mostWithin(at, time.Second); most > allowed {
		t.Errorf("%d in one second, want at most %d", most, allowed)
	}
	if rate > perSecond*1.05 || rate < perSecond*0.7 {
		t.Errorf("rate %.2f/s, want %d/s (+5%%, -30%%)", rate, perSecond)
	}
}

// arrivals is a receiver that records when each request came, who sent
// it (User-Agent) and how many webhook-ids came more than once.
type arrivals struct {
	*httptest.Server
	mu  sync.Mutex
	at  []time.Time
	by  map[string]int
	ids map[string]int
}

func newArrivals(t *testing.T) *arrivals {
	a := &arrivals{by: map[string]int{}, ids: map[string]int{}}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.at = append(a.at, time.Now())
		a.by[r.UserAgent()]++
		a.ids[r.Header.Get("webhook-id")]++
		a.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *arrivals) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.ids)
}

// seen returns the arrivals in order, the requests per sender and the
// requests beyond each webhook-id's first.
func (a *arrivals) seen() ([]time.Time, map[string]int, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	at := append([]time.Time(nil), a.at...)
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	by := map[string]int{}
	for k, v := range a.by {
		by[k] = v
	}
	return at, by, len(a.at) - len(a.ids)
}

// mostWithin is the most arrivals (sorted) in any window of width w.
func mostWithin(at []time.Time, w time.Duration) int {
	most, lo := 0, 0
	for hi := range at {
		for at[hi].Sub(at[lo]) >= w {
			lo++
		}
		most = max(most, hi-lo+1)
	}
	return most
}
