package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// fakeStore holds endpoints in memory, safe for concurrent requests;
// only what the tests use is implemented (the embedded interface panics
// for the rest).
type fakeStore struct {
	store.Store
	mu        sync.Mutex
	endpoints map[string]*store.Endpoint
	circuits  map[string]circuit.Breaker
	events    map[string]*store.Event
}

// EventTypesVersion and ListEventTypes are an empty event-type catalog.
func (f *fakeStore) EventTypesVersion(context.Context) (int64, error) { return 0, nil }

func (f *fakeStore) ListEventTypes(context.Context, store.Page) ([]*store.EventType, string, error) {
	return nil, "", nil
}

func (f *fakeStore) Circuit(_ context.Context, id string) (circuit.Breaker, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.circuits[id], nil
}

func (f *fakeStore) UpdateCircuit(ctx context.Context, id string, fn func(circuit.Breaker) circuit.Breaker) (circuit.Breaker, error) {
	return f.UpdateCircuitAnnouncing(ctx, id, func(b circuit.Breaker) (circuit.Breaker, []store.OpEvent) { return fn(b), nil })
}

func (f *fakeStore) UpdateCircuitAnnouncing(_ context.Context, id string, fn func(circuit.Breaker) (circuit.Breaker, []store.OpEvent)) (circuit.Breaker, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.endpoints[id]; !ok {
		return circuit.Breaker{}, store.ErrNotFound
	}
	if f.circuits == nil {
		f.circuits = map[string]circuit.Breaker{}
	}
	f.circuits[id], _ = fn(f.circuits[id])
	return f.circuits[id], nil
}

func (f *fakeStore) UpdateEndpoint(_ context.Context, ep *store.Endpoint, _ ...store.OpEvent) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.endpoints[ep.ID]; !ok {
		return store.ErrNotFound
	}
	cp := *ep
	f.endpoints[ep.ID] = &cp
	return nil
}

func (f *fakeStore) GetEndpoint(_ context.Context, id string) (*store.Endpoint, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ep, ok := f.endpoints[id]; ok {
		cp := *ep
		return &cp, nil
	}
	return nil, store.ErrNotFound
}

// MatchingEndpoints finds no subscriber: operational events go nowhere.
func (f *fakeStore) MatchingEndpoints(context.Context, string, string) ([]*store.Endpoint, error) {
	return nil, nil
}

// ClaimEvent records nothing: every test event is new.
func (f *fakeStore) ClaimEvent(_ context.Context, ev *store.Event) (*store.Event, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.events == nil {
		f.events = map[string]*store.Event{}
	}
	f.events[ev.ID] = ev
	return ev, true, nil
}

func (f *fakeStore) GetEvent(_ context.Context, id string) (*store.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ev, ok := f.events[id]; ok {
		return ev, nil
	}
	return nil, store.ErrNotFound
}

// fakeTemporal records workflow starts and answers state queries from
// states, one per query (the last one repeats).
type fakeTemporal struct {
	client.Client
	startErr error

	mu      sync.Mutex
	starts  []client.StartWorkflowOptions
	reqs    []delivery.Request
	states  []delivery.Result
	queries int
	hang    int // the first hang queries block until their ctx ends

	// executions answer ListWorkflow (later, if set, every list after
	// the first); lists and signals record the calls.
	executions []*workflowpb.WorkflowExecutionInfo
	later      []*workflowpb.WorkflowExecutionInfo
	lists      []string
	signals    []sentSignal
	signalErr  map[string]error // by workflow ID
	updates    []sentSignal     // UpdateWorkflow calls, each accepted
}

// sentSignal is one SignalWorkflow call.
type sentSignal struct {
	id, runID, name string
	arg             any
}

func (f *fakeTemporal) ExecuteWorkflow(_ context.Context, opts client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.startErr != nil {
		return nil, f.startErr
	}
	if workflow != delivery.WorkflowDelivery || len(args) != 1 {
		return nil, errors.New("unexpected workflow start")
	}
	f.starts = append(f.starts, opts)
	f.reqs = append(f.reqs, args[0].(delivery.Request))
	return nil, nil
}

func (f *fakeTemporal) QueryWorkflow(ctx context.Context, id, _ string, query string, _ ...any) (converter.EncodedValue, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries++
	if f.queries <= f.hang {
		f.mu.Unlock()
		<-ctx.Done()
		f.mu.Lock()
		return nil, ctx.Err()
	}
	if query != delivery.QueryState || len(f.starts) == 0 || id != f.starts[len(f.starts)-1].ID {
		return nil, errors.New("unexpected query")
	}
	if len(f.states) == 0 {
		return nil, errors.New("workflow not ready")
	}
	st := f.states[0]
	if len(f.states) > 1 {
		f.states = f.states[1:]
	}
	return resultValue(st), nil
}

func (f *fakeTemporal) ListWorkflow(_ context.Context, req *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lists = append(f.lists, req.GetQuery())
	if f.later != nil && len(f.lists) > 1 {
		return &workflowservice.ListWorkflowExecutionsResponse{Executions: f.later}, nil
	}
	return &workflowservice.ListWorkflowExecutionsResponse{Executions: f.executions}, nil
}

// listed returns the queries listed so far.
func (f *fakeTemporal) listed() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.lists)
}

func (f *fakeTemporal) SignalWorkflow(_ context.Context, id, runID, name string, arg any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.signalErr[id]; err != nil {
		return err
	}
	f.signals = append(f.signals, sentSignal{id, runID, name, arg})
	return nil
}

// UpdateWorkflow records the update; the workflow accepts and completes it.
func (f *fakeTemporal) UpdateWorkflow(_ context.Context, opts client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.updates = append(f.updates, sentSignal{opts.WorkflowID, opts.RunID, opts.UpdateName, opts.Args[0]})
	return completedUpdate{}, nil
}

// sent returns the updates sent so far.
func (f *fakeTemporal) sent() []sentSignal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.updates)
}

// completedUpdate is an update the workflow accepted and completed.
type completedUpdate struct{ client.WorkflowUpdateHandle }

func (completedUpdate) Get(context.Context, any) error { return nil }

// resultValue is a query answer holding a delivery.Result.
type resultValue delivery.Result

func (v resultValue) HasValue() bool { return true }
func (v resultValue) Get(p any) error {
	*(p.(*delivery.Result)) = delivery.Result(v)
	return nil
}

func newTestServer(t *testing.T, tc *fakeTemporal) *Server {
	t.Helper()
	st := &fakeStore{endpoints: map[string]*store.Endpoint{
		"ep_on":  {ID: "ep_on", URL: "https://example.com/h", EventTypes: []string{"order.*"}, Enabled: true, Timeout: time.Second},
		"ep_off": {ID: "ep_off", URL: "https://example.com/h", Enabled: false},
	}}
	s, err := New(Config{Temporal: tc, Store: st, APIKeys: []string{"k"}, Namespace: "default",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	// No second look within a test that does not ask for one.
	s.wakeSettle = time.Hour
	return s
}

// postTest calls the test route and decodes the answer.
func postTest(t *testing.T, s *Server, ctx context.Context, id, body string) (int, map[string]any) {
	t.Helper()
	return post(t, s, ctx, "/v1/endpoints/"+id+"/test", body)
}

// post sends an authenticated POST and decodes the JSON answer.
func post(t *testing.T, s *Server, ctx context.Context, path, body string) (int, map[string]any) {
	t.Helper()
	return callJSON(t, s, ctx, http.MethodPost, path, body)
}

// callJSON sends an authenticated request and decodes the JSON answer.
func callJSON(t *testing.T, s *Server, ctx context.Context, method, path, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequestWithContext(ctx, method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer k")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	var out map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
	return rec.Code, out
}

// The test route starts one delivery of a fresh hookd.test event to the
// endpoint, even though its filter does not match, and answers the first
// attempt once the state query shows it.
func TestEndpointTestReportsFirstAttempt(t *testing.T) {
	first := delivery.Attempt{Number: 1, Status: 503, Outcome: delivery.OutcomeRetryable, ErrorClass: "http_5xx",
		Duration: 12345 * time.Microsecond, NextDelay: time.Second}
	tc := &fakeTemporal{states: []delivery.Result{
		{Status: delivery.StatusPending},
		{Status: delivery.StatusPending, Attempts: []delivery.Attempt{first}},
	}}
	s := newTestServer(t, tc)

	code, out := postTest(t, s, context.Background(), "ep_on", "")
	require.Equal(t, http.StatusOK, code, out)
	require.Len(t, tc.reqs, 1)
	req := tc.reqs[0]
	assert.Equal(t, TestEventType, req.EventType)
	assert.Equal(t, "ep_on", req.EndpointID)
	assert.True(t, strings.HasPrefix(req.EventID, "evt_test_"), req.EventID)
	assert.Equal(t, delivery.ID(req.EventID, "ep_on"), req.DeliveryID)
	assert.Equal(t, req.DeliveryID, tc.starts[0].ID)
	assert.Equal(t, time.Second, req.Timeout)
	assert.Equal(t, delivery.DefaultSchedule(), req.Schedule)
	body, _ := s.bodyOf(context.Background(), req)
	assert.Contains(t, body, `"endpoint_id":"ep_on"`)
	assert.NotContains(t, body, "example.com", "no URL in workflow input")
	assert.Empty(t, req.Body, "the body goes sealed with its event's key")
	assert.Equal(t, map[string]any{
		"delivery_id": req.DeliveryID, "event_id": req.EventID, "outcome": "retryable",
		"status": 503.0, "error_class": "http_5xx", "duration_ms": 12.345,
	}, out)
	assert.GreaterOrEqual(t, tc.queries, 2)

	// Every call is a new event, hence a new delivery.
	tc.states = []delivery.Result{{Status: delivery.StatusDelivered, Attempts: []delivery.Attempt{{Number: 1, Status: 204, Outcome: delivery.OutcomeSuccess}}}}
	code, out = postTest(t, s, context.Background(), "ep_on", "{}")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "success", out["outcome"])
	assert.Equal(t, 204.0, out["status"])
	require.Len(t, tc.reqs, 2)
	assert.NotEqual(t, tc.reqs[0].DeliveryID, tc.reqs[1].DeliveryID)
}

// When the first attempt is not known in time the answer is 202 with
// outcome "pending"; a deferral is reported as soon as the state says so.
func TestEndpointTestPendingAndDeferred(t *testing.T) {
	tc := &fakeTemporal{states: []delivery.Result{{Status: delivery.StatusPending}}}
	s := newTestServer(t, tc)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	code, out := postTest(t, s, ctx, "ep_on", "")
	require.Equal(t, http.StatusAccepted, code)
	assert.Equal(t, "pending", out["outcome"])
	assert.Equal(t, tc.reqs[0].DeliveryID, out["delivery_id"])

	tc.states = []delivery.Result{{Status: delivery.StatusPending, WaitUntil: time.Now().Add(time.Minute), WaitReason: delivery.WaitCircuitOpen}}
	start := time.Now()
	code, out = postTest(t, s, context.Background(), "ep_on", "")
	require.Equal(t, http.StatusAccepted, code)
	assert.Equal(t, "circuit_open", out["outcome"], "the circuit opened after the route checked it")
	assert.Equal(t, "circuit open", out["error"])
	assert.Less(t, time.Since(start), time.Second)
}

// A query that does not come back (one Temporal buffered while the run's
// first workflow task was in flight) is given up and asked again, rather
// than spending the whole wait: the attempt is reported, not "pending".
func TestEndpointTestAsksAgainAfterAStuckQuery(t *testing.T) {
	tc := &fakeTemporal{hang: 1, states: []delivery.Result{
		{Status: delivery.StatusDelivered, Attempts: []delivery.Attempt{{Number: 1, Status: 200, Outcome: delivery.OutcomeSuccess}}},
	}}
	s := newTestServer(t, tc)
	start := time.Now()
	code, out := postTest(t, s, context.Background(), "ep_on", "")
	require.Equal(t, http.StatusOK, code, out)
	assert.Equal(t, "success", out["outcome"])
	assert.Equal(t, 2, tc.queries)
	assert.Less(t, time.Since(start), testWaitSlack, "answered before the wait ran out")
}

// A test the endpoint's circuit would hold back is refused at once, and
// the answer says the circuit is open and how to recover it.
func TestEndpointTestRefusedWhileTheCircuitHoldsBack(t *testing.T) {
	tc := &fakeTemporal{}
	s := newTestServer(t, tc)
	st := s.store.(*fakeStore)
	now := time.Now()
	for name, b := range map[string]circuit.Breaker{
		"open":                 {State: circuit.Open, Failures: 5, OpenUntil: now.Add(time.Minute)},
		"half-open with probe": {State: circuit.HalfOpen, Failures: 5, ProbeUntil: now.Add(time.Minute)},
	} {
		st.circuits = map[string]circuit.Breaker{"ep_on": b}
		code, out := postTest(t, s, context.Background(), "ep_on", "")
		require.Equal(t, http.StatusConflict, code, name)
		e := out["error"].(map[string]any)
		assert.Equal(t, "circuit", e["field"], name)
		assert.Contains(t, e["message"], "/v1/endpoints/ep_on/recover", name)
	}
	assert.Empty(t, tc.starts, "nothing was started")

	// Once the cooldown is over the test is the probe: it goes ahead.
	st.circuits = map[string]circuit.Breaker{"ep_on": {State: circuit.Open, Failures: 5, OpenUntil: now.Add(-time.Second)}}
	tc.states = []delivery.Result{{Status: delivery.StatusDelivered, Attempts: []delivery.Attempt{{Number: 1, Status: 200, Outcome: delivery.OutcomeSuccess}}}}
	code, out := postTest(t, s, context.Background(), "ep_on", "")
	require.Equal(t, http.StatusOK, code, out)
	assert.Equal(t, "success", out["outcome"])
}

func TestEndpointTestRefusals(t *testing.T) {
	tc := &fakeTemporal{}
	s := newTestServer(t, tc)
	assertRefusals(t, func(id, body string) (int, map[string]any) {
		return postTest(t, s, context.Background(), id, body)
	}, []refusal{
		{"ep_missing", "", http.StatusNotFound, ""},
		{"ep_off", "", http.StatusConflict, "enabled"},
		{"ep_on", `{"type":"x"}`, http.StatusBadRequest, "type"},
		{"ep_on", `[`, http.StatusBadRequest, "body"},
	})
	assert.Empty(t, tc.starts, "nothing was started")

	tc.startErr = errors.New("frontend unavailable")
	code, out := postTest(t, s, context.Background(), "ep_on", "")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.NotContains(t, out["error"].(map[string]any)["message"], "frontend")
}

// refusal is a request a route must refuse: its status and the field its
// error names ("" for none).
type refusal struct {
	id, body string
	status   int
	field    string
}

// assertRefusals posts each refusal's body for its endpoint ID and checks
// the status and the field named.
func assertRefusals(t *testing.T, post func(id, body string) (int, map[string]any), cases []refusal) {
	t.Helper()
	for _, c := range cases {
		code, out := post(c.id, c.body)
		assert.Equal(t, c.status, code, "%s %s", c.id, c.body)
		e, _ := out["error"].(map[string]any)
		field, _ := e["field"].(string)
		assert.Equal(t, c.field, field, "%v", out)
	}
}

// The test route answers 202 "pending" within its own bound (MaxTestWait
// in production), however long the endpoint's timeout: an endpoint with
// the longest timeout would otherwise be waited for past the HTTP
// server's write timeout, and the client would get an empty reply.
func TestEndpointTestBoundedBelowTheWriteTimeout(t *testing.T) {
	require.Less(t, delivery.AttemptTimeout(delivery.MaxTimeout)+testWaitSlack, 2*time.Minute, "the unbounded wait this guards against")
	require.Less(t, MaxTestWait, delivery.AttemptTimeout(delivery.MaxTimeout)+testWaitSlack, "the bound is below the longest wait")
	tc := &fakeTemporal{} // no state: the first attempt is never known
	s := newTestServer(t, tc)
	s.store.(*fakeStore).endpoints["ep_slow"] = &store.Endpoint{ID: "ep_slow", URL: "https://example.com/h", Enabled: true, Timeout: delivery.MaxTimeout}
	s.testWait = 300 * time.Millisecond
	type answer struct {
		code int
		out  map[string]any
	}
	done := make(chan answer, 1)
	start := time.Now()
	go func() {
		code, out := postTest(t, s, context.Background(), "ep_slow", "")
		done <- answer{code, out}
	}()
	select {
	case a := <-done:
		require.Equal(t, http.StatusAccepted, a.code, a.out)
		assert.Equal(t, "pending", a.out["outcome"])
		assert.NotEmpty(t, a.out["delivery_id"])
		assert.GreaterOrEqual(t, time.Since(start), s.testWait)
	case <-time.After(5 * time.Second):
		t.Fatal("the test route did not answer within its bound")
	}
}

// TestHoldUsesTheConfiguredCircuit: the API answers by the workers'
// circuit tuning, not the default: a half-open circuit whose probe is
// out holds a redrive for a quarter of the configured base cooldown.
func TestHoldUsesTheConfiguredCircuit(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		policy circuit.Policy
		want   time.Duration
	}{
		{circuit.Policy{}, circuit.DefaultPolicy().BaseCooldown / 4},
		{circuit.Policy{Threshold: 5, BaseCooldown: 8 * time.Minute, MaxCooldown: time.Hour}, 2 * time.Minute},
	} {
		st := &fakeStore{
			endpoints: map[string]*store.Endpoint{"ep_on": {ID: "ep_on", Enabled: true}},
			circuits:  map[string]circuit.Breaker{"ep_on": {State: circuit.HalfOpen, ProbeUntil: now.Add(time.Hour)}},
		}
		s, err := New(Config{Temporal: &fakeTemporal{}, Store: st, APIKeys: []string{"k"}, Namespace: "default",
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Circuit: tc.policy})
		require.NoError(t, err)
		s.now = func() time.Time { return now }
		h := s.heldBy(context.Background(), "ep_on")
		require.Equal(t, HoldCircuitOpen, h.By)
		require.NotNil(t, h.Until)
		assert.Equal(t, now.Add(tc.want), *h.Until, "policy %+v", tc.policy)
	}
}
