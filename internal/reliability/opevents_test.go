package reliability

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/signing"
)

// holdingSink subscribes to hookd's operational events. While held, it
// keeps each request open without answering (a delivery in flight, as a
// kill -9 finds it); otherwise it answers 200 and records the event, once
// per webhook-id.
type holdingSink struct {
	t        *testing.T
	srv      *httptest.Server
	verifier *signing.Verifier

	mu       sync.Mutex
	hold     bool
	inFlight map[string]string // webhook-id -> type + " " + endpoint_id (or event_id), of held requests
	got      map[string]string // webhook-id -> type + " " + endpoint_id (or event_id) + " " + reason
	answers  map[string]int    // webhook-id -> 2xx answers
}

func newHoldingSink(t *testing.T) *holdingSink {
	s := &holdingSink{t: t, inFlight: map[string]string{}, got: map[string]string{}, answers: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *holdingSink) handle(w http.ResponseWriter, r *http.Request) {
	var body struct {
		EndpointID string `json:"endpoint_id"`
		EventID    string `json:"event_id"`
		Reason     string `json:"reason"`
	}
	raw := make([]byte, 0, 1024)
	buf := make([]byte, 1024)
	for {
		n, err := r.Body.Read(buf)
		raw = append(raw, buf[:n]...)
		if err != nil {
			break
		}
	}
	_ = json.Unmarshal(raw, &body)
	id := r.Header.Get("webhook-id")
	what := r.Header.Get("hookd-event-type") + " " + cmp.Or(body.EndpointID, body.EventID)
	s.mu.Lock()
	if s.verifier != nil {
		if _, _, err := s.verifier.Verify(raw, r.Header); err != nil {
			s.mu.Unlock()
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
	}
	if s.hold {
		s.inFlight[id] = what
		s.mu.Unlock()
		<-r.Context().Done() // until hookd dies
		return
	}
	s.got[id] = what + " " + body.Reason
	s.answers[id]++
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (s *holdingSink) setHold(hold bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = hold
}

// holding reports whether a request for what is held open.
func (s *holdingSink) holding(what string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.inFlight {
		if w == what {
			return true
		}
	}
	return false
}

// received lists what was answered about endpointID (or an event ID),
// sorted, and the 2xx answers per webhook-id.
func (s *holdingSink) received(endpointID string) ([]string, []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	var answers []int
	for id, w := range s.got {
		if strings.Contains(w, " "+endpointID) {
			out = append(out, w)
			answers = append(answers, s.answers[id])
		}
	}
	slices.Sort(out)
	return out, answers
}

// 7. Operational events survive a kill -9 between the action and their
// delivery: an endpoint's creation (from the API) and its auto-disable
// after failing for --auto-disable-after (from the attempt), each with
// its deliveries to the platform's and the tenant's subscribers in
// flight when hookd dies. After the restart each subscriber gets each
// event once; another tenant's gets none.
func TestOperationalEventsSurviveKill9(t *testing.T) {
	// Retries a second apart (±20%) fail for 2s by the fourth failure at
	// the latest: the endpoint is disabled before a fifth would open its
	// circuit (and announce it unhealthy).
	h := startHookd(t, "--auto-disable-after", "2s", "--circuit-cooldown", "1s", "--circuit-max-cooldown", "1s")
	for _, tenant := range []string{"acme", "globex"} {
		require.Equal(t, http.StatusCreated, h.call("PUT", "/v1/tenants/"+tenant, map[string]any{"name": tenant}, nil))
	}
	subscribe := func(tenant string) *holdingSink {
		s := newHoldingSink(t)
		body := map[string]any{"url": s.srv.URL, "event_types": []string{"hookd.endpoint.*"}, "retry_schedule": slices.Repeat([]string{"1s"}, 10)}
		if tenant != "" {
			body["tenant_id"] = tenant
		}
		var ep wire.Endpoint
		require.Equal(t, http.StatusCreated, h.call("POST", "/v1/endpoints", body, &ep))
		v, err := signing.NewVerifier(ep.Secret)
		require.NoError(t, err)
		s.verifier = v
		s.setHold(true)
		return s
	}
	platform, acme, globex := subscribe(""), subscribe("acme"), subscribe("globex")
	globex.setHold(false) // it answers whatever it gets: it must get nothing about acme's endpoint
	subs := []*holdingSink{platform, acme}

	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	t.Cleanup(down.Close)
	var ep wire.Endpoint
	require.Equal(t, http.StatusCreated, h.call("POST", "/v1/endpoints", map[string]any{
		"url": down.URL, "tenant_id": "acme", "event_types": []string{"rel.opev"}, "retry_schedule": slices.Repeat([]string{"1s"}, 10),
	}, &ep))
	killWhileHeld := func(what string) {
		for _, s := range subs {
			require.Eventually(t, func() bool { return s.holding(what + " " + ep.ID) }, 20*time.Second, 20*time.Millisecond, "%s not in flight", what)
		}
		h.kill9()
		h.start()
		for _, s := range subs {
			s.setHold(false)
		}
	}
	killWhileHeld("hookd.endpoint.created")

	var ev wire.EventAccepted
	require.Equal(t, http.StatusAccepted, h.call("POST", "/v1/events", map[string]any{"type": "rel.opev", "tenant_id": "acme", "payload": map[string]int{}}, &ev))
	for _, s := range subs {
		s.setHold(true)
	}
	killWhileHeld("hookd.endpoint.disabled")

	want := []string{"hookd.endpoint.created " + ep.ID + " ", "hookd.endpoint.disabled " + ep.ID + " auto"}
	for i, s := range subs {
		require.Eventually(t, func() bool { got, _ := s.received(ep.ID); return len(got) >= 2 }, 60*time.Second, 100*time.Millisecond, "subscriber %d", i)
	}
	time.Sleep(2 * time.Second)
	for i, s := range subs {
		got, answers := s.received(ep.ID)
		require.Equal(t, want, got, "subscriber %d: each event once", i)
		require.Equal(t, []int{1, 1}, answers, "subscriber %d: each delivered once", i)
	}
	got, _ := globex.received(ep.ID)
	require.Empty(t, got, "another tenant's subscriber")

	var view wire.Endpoint
	require.Equal(t, http.StatusOK, h.call("GET", "/v1/endpoints/"+ep.ID, nil, &view))
	require.False(t, view.Enabled)
	require.EqualValues(t, "auto", view.DisabledReason)
	var d wire.Delivery
	require.Eventually(t, func() bool {
		return h.call("GET", "/v1/deliveries/"+ev.Deliveries[0].ID, nil, &d) == http.StatusOK && d.WaitReason == "endpoint disabled"
	}, 30*time.Second, 200*time.Millisecond, "the failing delivery is held: %+v", d)
	report(row{scenario: "operational events across kill -9", accepted: 2 * len(subs), delivered: 2 * len(subs), note: "created and auto-disabled, each in flight at kill -9"})
}
