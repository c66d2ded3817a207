package opevents

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/store"
)

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// sink records what is published and to which endpoints; it fails while
// fail is set.
type sink struct {
	mu     sync.Mutex
	events []ingest.Event
	to     map[string][]string
	fail   error
}

func (s *sink) PublishTo(_ context.Context, ev ingest.Event, eps []*store.Endpoint) (ingest.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return ingest.Result{}, s.fail
	}
	s.events = append(s.events, ev)
	if s.to == nil {
		s.to = map[string][]string{}
	}
	for _, ep := range eps {
		s.to[ev.ID] = append(s.to[ev.ID], ep.ID)
	}
	return ingest.Result{EventID: ev.ID}, nil
}

// endpoints is a store of endpoints for the emitter.
type endpoints []*store.Endpoint

func (e endpoints) MatchingEndpoints(_ context.Context, tenantID, eventType string) ([]*store.Endpoint, error) {
	var out []*store.Endpoint
	for _, ep := range e {
		if ep.TenantID == tenantID && ep.Matches(eventType) {
			out = append(out, ep)
		}
	}
	return out, nil
}

func (e endpoints) GetEndpoint(_ context.Context, id string) (*store.Endpoint, error) {
	for _, ep := range e {
		if ep.ID == id {
			return ep, nil
		}
	}
	return nil, store.ErrNotFound
}

// Both health checks share one body: endpoint, reason, time, and the
// figures of the check that raised it.
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
		name: "success rate low", typ: EndpointUnhealthy,
		health: Health{EndpointID: "ep_2", Reason: ReasonSuccessRate, At: t0.In(time.FixedZone("x", 3600)), SuccessRate: &SuccessRate{Rate: 0.25, Attempts: 12, Successes: 3, Window: "1h", Threshold: 0.5}},
		id:     "hookd.endpoint.unhealthy:success_rate:ep_2:1772600767",
		body:   `{"endpoint_id":"ep_2","reason":"success_rate","at":"2026-03-04T05:06:07Z","success_rate":{"rate":0.25,"attempts":12,"successes":3,"window":"1h","threshold":0.5}}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := HealthEvent(tc.typ, tc.health, nil)
			assert.Equal(t, tc.typ, ev.Type)
			assert.Equal(t, tc.id, ev.ID)
			body, err := json.Marshal(ev.Body)
			require.NoError(t, err)
			assert.JSONEq(t, tc.body, string(body))
		})
	}
}

// A dead letter's event says how its last attempt ended, never the
// response or the URL; its ID is the delivery's and the run's, so a
// retried activity emits it once, and the next run's death is another.
func TestDeadLetteredBody(t *testing.T) {
	req := delivery.Request{DeliveryID: "dlv_1", EventID: "evt_1", EventType: "order.created", EndpointID: "ep_1", TenantID: "acme", TenantIncarnation: "i1", Body: `{"secret":"pii"}`, Run: 2}
	dl := delivery.DeadLetter{Request: req, Reason: delivery.StatusExhausted, DeadAt: t0, Attempts: []delivery.Attempt{
		{Status: 500, ErrorClass: "http_5xx", Response: "stack trace"}, {Status: 503, ErrorClass: "http_5xx", Response: "down"},
	}}
	ev := DeadLetteredEvent(dl)
	assert.Equal(t, "hookd.delivery.dead_lettered:dlv_1:2", ev.ID)
	assert.Equal(t, "acme", ev.TenantID)
	assert.Equal(t, "i1", ev.TenantIncarnation)
	body, err := json.Marshal(ev.Body)
	require.NoError(t, err)
	assert.JSONEq(t, `{"delivery_id":"dlv_1","event_id":"evt_1","event_type":"order.created","endpoint_id":"ep_1","tenant_id":"acme","run":2,
		"at":"2026-03-04T05:06:07Z","status":"exhausted","attempts":2,"last_status":503,"last_error_class":"http_5xx"}`, string(body))

	assert.True(t, Quiet(delivery.Request{EventType: DeliveryDeadLettered}), "no events about deliveries of operational events")
	assert.True(t, Quiet(delivery.Request{EventType: "t", SingleAttempt: true}), "nor about test events")
	assert.False(t, Quiet(req))
}

// An event about a tenant's endpoint reaches the platform's endpoints and
// that tenant's that name its type, as two records; never another
// tenant's, nor a catch-all endpoint.
func TestEmitRoutes(t *testing.T) {
	eps := endpoints{
		{ID: "ep_platform", EventTypes: []string{"hookd.*"}},
		{ID: "ep_platform_exact", EventTypes: []string{"hookd.endpoint.disabled"}},
		{ID: "ep_platform_all"},
		{ID: "ep_platform_star", EventTypes: []string{"*"}},
		{ID: "ep_acme", TenantID: "acme", TenantIncarnation: "i1", EventTypes: []string{"hookd.endpoint.*"}},
		{ID: "ep_acme_other", TenantID: "acme", EventTypes: []string{"hookd.delivery.*", "order.*"}},
		{ID: "ep_globex", TenantID: "globex", EventTypes: []string{"hookd.*"}},
	}
	s := &sink{}
	e := NewEmitter(s, eps)
	ev := EndpointEvent(EndpointDisabled, eps[4], ActorHookd, DisabledGone, nil, t0)
	require.NoError(t, e.Emit(context.Background(), ev))
	require.Len(t, s.events, 2)
	assert.Equal(t, ev.ID, s.events[0].ID)
	assert.Empty(t, s.events[0].TenantID)
	assert.Equal(t, ev.ID+TenantSuffix, s.events[1].ID)
	assert.Equal(t, "acme", s.events[1].TenantID)
	assert.Equal(t, "i1", s.events[1].TenantIncarnation)
	assert.Equal(t, []string{"ep_platform", "ep_platform_exact"}, s.to[ev.ID])
	assert.Equal(t, []string{"ep_acme"}, s.to[ev.ID+TenantSuffix])
	assert.Equal(t, s.events[0].Body, s.events[1].Body)

	// A health event names only the endpoint: its tenant is read.
	s2 := &sink{}
	require.NoError(t, NewEmitter(s2, eps).Emit(context.Background(), HealthEvent(EndpointUnhealthy, Health{EndpointID: "ep_acme", Reason: ReasonCircuit, At: t0}, nil)))
	require.Len(t, s2.events, 2)
	assert.Equal(t, "acme", s2.events[1].TenantID)

	// Nobody subscribed: nothing recorded.
	s3 := &sink{}
	require.NoError(t, NewEmitter(s3, endpoints{{ID: "ep_all"}}).Emit(context.Background(), ev))
	assert.Empty(t, s3.events)
}

// A failed emission is the caller's error, to retry with the same ID.
func TestEmitFails(t *testing.T) {
	s := &sink{fail: errors.New("temporal unavailable")}
	e := NewEmitter(s, endpoints{{ID: "ep_1", EventTypes: []string{"hookd.*"}}})
	require.Error(t, e.Emit(context.Background(), ExpungedEvent("evt_1", "", "", "platform", "gdpr", t0)))
	var nilEmitter *Emitter
	require.NoError(t, nilEmitter.Emit(context.Background(), Event{}))
}

func TestNamesType(t *testing.T) {
	for _, tc := range []struct {
		types []string
		want  bool
	}{
		{nil, false}, {[]string{"*"}, false}, {[]string{"order.*"}, false},
		{[]string{"hookd.*"}, true}, {[]string{"hookd.delivery.*"}, true},
		{[]string{"hookd.delivery.dead_lettered"}, true}, {[]string{"hookd.endpoint.*"}, false},
	} {
		assert.Equal(t, tc.want, NamesType(tc.types, DeliveryDeadLettered), "%v", tc.types)
	}
}
