package activities

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/testkit"
	"github.com/hookd/hookd/signing"
)

// fakeEndpoints is an in-memory endpoint store: endpoints, one secret each
// and their breakers, with the circuit writes counted.
type fakeEndpoints struct {
	mu        sync.Mutex
	endpoints map[string]store.Endpoint
	breakers  map[string]circuit.Breaker
	secret    string
	readErr   error // returned by Circuit (the wake-up's read) when set
	writes    int   // UpdateCircuit calls
	tats      map[string]time.Time
	reserves  int // ReserveSlot calls
	eventKeys map[string]store.EventKey
	outbox    []store.OpEvent // events recorded with the changes
}

func newFakeEndpoints(t *testing.T, eps ...store.Endpoint) *fakeEndpoints {
	t.Helper()
	secret, err := signing.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeEndpoints{endpoints: map[string]store.Endpoint{}, breakers: map[string]circuit.Breaker{}, secret: secret}
	for _, ep := range eps {
		f.endpoints[ep.ID] = ep
	}
	return f
}

func (f *fakeEndpoints) GetEndpoint(_ context.Context, id string) (*store.Endpoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ep, ok := f.endpoints[id]
	if !ok {
		return nil, store.ErrNotFound
	}
	return &ep, nil
}

func (f *fakeEndpoints) ReadForAttempt(ctx context.Context, id, eventID string, _ time.Time) (*store.AttemptRead, error) {
	ep, err := f.GetEndpoint(ctx, id)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return &store.AttemptRead{Endpoint: ep, Key: f.eventKeys[eventID], Secrets: []store.Secret{{Value: f.secret}}, Circuit: f.breakers[id]}, nil
}

// admit is a.admit given the breaker f holds for ep, as the attempt's
// read gives it.
func (f *fakeEndpoints) admit(a *Activities, ctx context.Context, req delivery.Request, ep *store.Endpoint, held *delivery.Slot, now time.Time) gate {
	return a.admit(ctx, req, ep, f.breaker(ep.ID), held, now)
}

// ReserveSlot is the store's GCRA in memory (one TAT per endpoint,
// reset by a newer limit is not modelled).
func (f *fakeEndpoints) ReserveSlot(_ context.Context, id string, l store.RateLimit, now time.Time) (store.Slot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tats == nil {
		f.tats = map[string]time.Time{}
	}
	f.reserves++
	tat := f.tats[id]
	if tat.Before(now) {
		tat = now
	}
	tat = tat.Add(l.Interval())
	f.tats[id] = tat
	return store.Slot{At: l.SlotAt(tat, now), Since: l.Since}, nil
}

func (f *fakeEndpoints) RateTAT(_ context.Context, id string, _ time.Time) (time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tats[id], nil
}

func (f *fakeEndpoints) Circuit(_ context.Context, id string) (circuit.Breaker, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.readErr != nil {
		return circuit.Breaker{}, f.readErr
	}
	return f.breakers[id], nil
}

func (f *fakeEndpoints) UpdateCircuit(ctx context.Context, id string, fn func(circuit.Breaker) circuit.Breaker) (circuit.Breaker, error) {
	return f.UpdateCircuitAnnouncing(ctx, id, func(b circuit.Breaker) (circuit.Breaker, []store.OpEvent) { return fn(b), nil })
}

func (f *fakeEndpoints) UpdateCircuitAnnouncing(_ context.Context, id string, fn func(circuit.Breaker) (circuit.Breaker, []store.OpEvent)) (circuit.Breaker, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	if _, ok := f.endpoints[id]; !ok {
		return circuit.Breaker{}, store.ErrNotFound
	}
	b, events := fn(f.breakers[id])
	f.breakers[id] = b
	f.outbox = append(f.outbox, events...)
	return b, nil
}

// recorded is the types of the operational events recorded with the
// fake's changes, in order.
func (f *fakeEndpoints) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, ev := range f.outbox {
		out = append(out, ev.Type)
	}
	return out
}

func (f *fakeEndpoints) breaker(id string) circuit.Breaker {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.breakers[id]
}

func (f *fakeEndpoints) setBreaker(id string, b circuit.Breaker) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.breakers[id] = b
}

func (f *fakeEndpoints) circuitWrites() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes
}

// scripted is a loopback receiver answering the statuses in turn (the
// last one repeats) and recording each request's hookd-attempt header.
type scripted struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	attempts []string
}

func newScripted(t *testing.T, statuses ...int) *scripted {
	s := &scripted{statuses: statuses}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.attempts = append(s.attempts, r.Header.Get("hookd-attempt"))
		code := s.statuses[min(len(s.attempts), len(s.statuses))-1]
		s.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(s.Close)
	return s
}

// seen returns the hookd-attempt header of every request so far.
func (s *scripted) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.attempts...)
}

// testPolicy opens after three failures for a minute.
var testPolicy = circuit.Policy{Threshold: 3, BaseCooldown: time.Minute, MaxCooldown: 4 * time.Minute}

// newTestActivities returns activities over eps with loopback HTTP (no
// SSRF guard; endpoints with TLS settings: loopback allowed), no jitter
// and the given clock.
func newTestActivities(eps *fakeEndpoints, tc client.Client, now func() time.Time) *Activities {
	if tc == nil {
		tc = testkit.DownTemporal{}
	}
	a, err := New(Config{Endpoints: eps, HTTP: &http.Client{}, Egress: Egress{Guard: Guard{AllowLoopback: true}}, Temporal: tc, Version: "test",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Circuit: testPolicy})
	if err != nil {
		panic(err)
	}
	a.jitter = func() float64 { return 0 }
	if now != nil {
		a.now = now
	}
	return a
}

// activityEnv is Temporal's test environment for one activity execution.
func activityEnv(a *Activities) *testsuite.TestActivityEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	return env
}

// request is a delivery of a small body to ep on a schedule of 1s steps.
func request(ep string, retries int) delivery.Request {
	schedule := make([]time.Duration, retries)
	for i := range schedule {
		schedule[i] = time.Second
	}
	return delivery.Request{DeliveryID: "dlv_test", EventID: "evt_1", EventType: "order.created", EndpointID: ep,
		Body: `{"n":1}`, Schedule: schedule, Timeout: 5 * time.Second}
}

var errStore = errors.New("store down")

func (f *fakeEndpoints) DisableEndpoint(_ context.Context, id, reason string, at time.Time, events ...store.OpEvent) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ep, ok := f.endpoints[id]
	if !ok {
		return false, store.ErrNotFound
	}
	if !ep.Enabled {
		return false, nil
	}
	ep.Enabled, ep.DisabledReason, ep.UpdatedAt = false, reason, at
	f.endpoints[id] = ep
	f.outbox = append(f.outbox, events...)
	return true, nil
}
