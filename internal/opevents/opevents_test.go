package opevents

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/ingest"
)

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// sink records what is published; it fails while fail is set and blocks
// while hold is open.
type sink struct {
	mu     sync.Mutex
	events []ingest.Event
	tries  int
	fail   error
	hold   chan struct{}
}

func (s *sink) Publish(ctx context.Context, ev ingest.Event) (ingest.Result, error) {
	if s.hold != nil {
		select {
		case <-s.hold:
		case <-ctx.Done():
			return ingest.Result{}, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tries++
	if s.fail != nil {
		return ingest.Result{}, s.fail
	}
	s.events = append(s.events, ev)
	return ingest.Result{EventID: ev.ID}, nil
}

func (s *sink) published() []ingest.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ingest.Event(nil), s.events...)
}

// Both reasons share one body: endpoint, reason, time, and the figures of
// the check that raised it.
func TestHealthBody(t *testing.T) {
	tests := []struct {
		name   string
		typ    string
		health Health
		id     string
		body   string
	}{{
		name: "circuit opened", typ: EndpointUnhealthy,
		health: Health{EndpointID: "ep_1", Reason: ReasonCircuit, At: t0, Circuit: &Circuit{State: "open", Failures: 5, OpenUntil: t0.Add(time.Minute)}},
		id:     "hookd.endpoint.unhealthy:circuit:ep_1:1772600767",
		body:   `{"endpoint_id":"ep_1","reason":"circuit","at":"2026-03-04T05:06:07Z","circuit":{"state":"open","consecutive_failures":5,"open_until":"2026-03-04T05:07:07Z"}}`,
	}, {
		name: "circuit closed", typ: EndpointRecovered,
		health: Health{EndpointID: "ep_1", Reason: ReasonCircuit, At: t0.In(time.FixedZone("x", 3600)), Circuit: &Circuit{State: "closed"}},
		id:     "hookd.endpoint.recovered:circuit:ep_1:1772600767",
		body:   `{"endpoint_id":"ep_1","reason":"circuit","at":"2026-03-04T05:06:07Z","circuit":{"state":"closed","consecutive_failures":0}}`,
	}, {
		name: "success rate low", typ: EndpointUnhealthy,
		health: Health{EndpointID: "ep_2", Reason: ReasonSuccessRate, At: t0, SuccessRate: &SuccessRate{Rate: 0.25, Attempts: 12, Successes: 3, Window: "1h", Threshold: 0.5}},
		id:     "hookd.endpoint.unhealthy:success_rate:ep_2:1772600767",
		body:   `{"endpoint_id":"ep_2","reason":"success_rate","at":"2026-03-04T05:06:07Z","success_rate":{"rate":0.25,"attempts":12,"successes":3,"window":"1h","threshold":0.5}}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := tc.health.event(tc.typ)
			require.NoError(t, err)
			assert.Equal(t, tc.typ, ev.Type)
			assert.Equal(t, tc.id, ev.ID)
			assert.JSONEq(t, tc.body, ev.Body)
		})
	}
}

// Publish hands the event over and returns while the sink is still busy:
// a producer never waits on Temporal.
func TestPublishDoesNotWait(t *testing.T) {
	s := &sink{hold: make(chan struct{})}
	p := NewPublisher(s, nil)
	stop := run(p)
	returned := make(chan struct{})
	go func() {
		for i := range 3 {
			p.Publish(EndpointUnhealthy, Health{EndpointID: "ep_1", Reason: ReasonCircuit, At: t0.Add(time.Duration(i) * time.Second)})
		}
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish waited for the sink")
	}
	assert.Empty(t, s.published())
	close(s.hold)
	require.Eventually(t, func() bool { return len(s.published()) == 3 }, 5*time.Second, 5*time.Millisecond)
	stop()
}

// An event that failed to publish is tried again with the same ID.
func TestPublishRetried(t *testing.T) {
	s := &sink{fail: errors.New("temporal unavailable")}
	p := NewPublisher(s, nil)
	p.retryEvery = 10 * time.Millisecond
	stop := run(p)
	p.Publish(EndpointRecovered, Health{EndpointID: "ep_1", Reason: ReasonCircuit, At: t0})
	require.Eventually(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.tries >= 2 }, 5*time.Second, 5*time.Millisecond)
	s.mu.Lock()
	s.fail = nil
	s.mu.Unlock()
	require.Eventually(t, func() bool { return len(s.published()) == 1 }, 5*time.Second, 5*time.Millisecond)
	assert.Equal(t, "hookd.endpoint.recovered:circuit:ep_1:1772600767", s.published()[0].ID)
	stop()
}

// The queue is bounded: while the sink is down, the newest MaxQueued
// events are kept, in order.
func TestQueueBounded(t *testing.T) {
	s := &sink{}
	p := &Publisher{sink: s, log: slog.Default(), wake: make(chan struct{}, 1)} // no background loop
	for i := range MaxQueued + 10 {
		p.Publish(EndpointUnhealthy, Health{EndpointID: "ep_1", Reason: ReasonCircuit, At: t0.Add(time.Duration(i) * time.Second)})
	}
	require.True(t, p.flush(context.Background()))
	got := s.published()
	require.Len(t, got, MaxQueued)
	assert.Equal(t, "hookd.endpoint.unhealthy:circuit:ep_1:1772600777", got[0].ID, "the 10 oldest were dropped")
	assert.Equal(t, "hookd.endpoint.unhealthy:circuit:ep_1:1772600876", got[len(got)-1].ID)
}

// A stopped publisher drops what it is given instead of blocking; what was
// queued before the stop gets one last try.
func TestPublishAfterStop(t *testing.T) {
	s := &sink{}
	p := NewPublisher(s, nil)
	p.Publish(EndpointRecovered, Health{EndpointID: "ep_1", Reason: ReasonCircuit, At: t0})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p.Run(ctx) // stopped at once: the queued event is tried once
	require.Len(t, s.published(), 1)
	p.Publish(EndpointUnhealthy, Health{EndpointID: "ep_1", Reason: ReasonCircuit, At: t0})
	p.flush(context.Background())
	assert.Len(t, s.published(), 1, "nothing published after the stop")
	var nilPublisher *Publisher
	nilPublisher.Run(context.Background())
}

// run runs p's loop until the returned stop is called, which waits for it.
func run(p *Publisher) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		p.Run(ctx)
		close(done)
	}()
	return func() {
		cancel()
		<-done
	}
}
