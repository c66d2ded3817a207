package reliability

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/store/pgtest"
	"github.com/hookd/hookd/internal/store/secretbox"
	"github.com/hookd/hookd/internal/testkit"
	"github.com/hookd/hookd/signing"
)

// child is a hookd process of any mode that can be killed and started
// again with the same arguments and environment, and ready says when it
// serves.
type child struct {
	*testkit.Proc
	ready func(p *testkit.Proc)
}

// startChild starts `hookd args...` with env (testkit.StartProc) and
// waits for ready.
func startChild(t *testing.T, name string, env []string, ready func(p *testkit.Proc), args ...string) *child {
	c := &child{Proc: testkit.StartProc(t, name, hookdBin, env, args...), ready: ready}
	c.ready(c.Proc)
	return c
}

// start starts the process again and waits for ready.
func (c *child) start() {
	c.Start()
	c.ready(c.Proc)
}

// stop stops the process with SIGTERM (SIGKILL after 15s).
func (c *child) stop() { c.Stop(15 * time.Second) }

func (c *child) kill9() { c.Kill9() }

// printed is ready once the process printed line.
func printed(line string) func(p *testkit.Proc) {
	return func(p *testkit.Proc) { p.AwaitPrinted(line, 2*time.Minute) }
}

// answers200 is ready once url answers 200.
func answers200(url string) func(p *testkit.Proc) {
	return func(p *testkit.Proc) { p.AwaitOK(url, 2*time.Minute) }
}

// tryCall sends an API request that may not answer in time (it waits on
// Temporal, which is down) and returns its status, 0 for none.
func tryCall(h *hookd, method, path string, body any, within time.Duration) int {
	raw, err := json.Marshal(body)
	require.NoError(h.t, err)
	req, err := http.NewRequest(method, h.url+path, bytes.NewReader(raw))
	require.NoError(h.t, err)
	req.Header.Set("Authorization", "Bearer "+h.key)
	resp, err := (&http.Client{Timeout: within}).Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// 8. Operational events outlive the process that caused them: with
// Temporal down (so no event can be published), a `hookd serve` process
// changes endpoints (update, disable, recover, create, delete) and
// expunges an event, and is killed with kill -9. A second `hookd serve`
// on the same PostgreSQL keeps running. Once Temporal and the killed
// process are back, the platform's and the tenant's subscribers each get
// each event exactly once; another tenant's gets none.
func TestOperationalEventsOutliveKill9(t *testing.T) {
	dbURL := pgtest.Start(t)
	temporalAddr := testkit.FreeAddr(t)
	temporal := startChild(t, "temporal", nil, printed("is running"), "dev", "--only-temporal",
		"--data-dir", filepath.Join(t.TempDir(), "temporal"), "--temporal-addr", temporalAddr,
		"--ui-addr", "", "--log-level", "warn")
	master, err := secretbox.GenerateKey()
	require.NoError(t, err)
	payload, err := secretbox.GenerateKey()
	require.NoError(t, err)
	apiKey := "hk_outbox_" + strings.Repeat("k", 32)
	env := []string{
		"TEMPORAL_ADDRESS=" + temporalAddr, "TEMPORAL_NAMESPACE=default",
		"HOOKD_DATABASE_URL=" + dbURL, "HOOKD_MASTER_KEY=" + secretbox.EncodeKey(master),
		"HOOKD_PAYLOAD_KEYS=" + secretbox.EncodeKey(payload), "HOOKD_ALLOW_CIDRS=127.0.0.1/32",
		"HOOKD_API_KEYS=" + apiKey, "HOOKD_SHUTDOWN_TIMEOUT=5s", "HOOKD_LOG_LEVEL=warn",
	}
	serve := func(name string) (*child, *hookd) {
		addr := testkit.FreeAddr(t)
		c := startChild(t, name, append(slices.Clip(env), "HOOKD_HTTP_ADDR="+addr), answers200("http://"+addr+"/readyz"), "serve")
		return c, &hookd{t: t, url: "http://" + addr, key: apiKey}
	}
	killed, h := serve("serve1")
	_, _ = serve("serve2") // publishes from the same outbox meanwhile

	for _, tenant := range []string{"acme", "globex"} {
		require.Equal(t, http.StatusCreated, h.call("PUT", "/v1/tenants/"+tenant, map[string]any{"name": tenant}, nil))
	}
	subscribe := func(tenant string) *holdingSink {
		s := newHoldingSink(t)
		body := map[string]any{"url": s.srv.URL, "event_types": []string{"hookd.*"}, "tenant_id": tenant}
		if tenant == "" {
			delete(body, "tenant_id")
		}
		var ep wire.Endpoint
		require.Equal(t, http.StatusCreated, h.call("POST", "/v1/endpoints", body, &ep))
		v, err := signing.NewVerifier(ep.Secret)
		require.NoError(t, err)
		s.verifier = v
		return s
	}
	platform, acme, globex := subscribe(""), subscribe("acme"), subscribe("globex")

	target := newHoldingSink(t)
	var ep, other wire.Endpoint
	require.Equal(t, http.StatusCreated, h.call("POST", "/v1/endpoints", map[string]any{
		"url": target.srv.URL, "tenant_id": "acme", "event_types": []string{"rel.outbox"},
	}, &ep))
	var ev wire.EventAccepted
	require.Equal(t, http.StatusAccepted, h.call("POST", "/v1/events", map[string]any{"type": "rel.outbox", "tenant_id": "acme", "payload": map[string]int{"n": 1}}, &ev))
	for _, s := range []*holdingSink{platform, acme} {
		require.Eventually(t, func() bool { got, _ := s.received(ep.ID); return len(got) == 1 }, time.Minute, 50*time.Millisecond, "created, with Temporal up")
	}
	require.Eventually(t, func() bool {
		var d wire.Delivery
		return h.call("GET", "/v1/deliveries/"+ev.Deliveries[0].ID, nil, &d) == http.StatusOK && d.Status == "delivered"
	}, time.Minute, 100*time.Millisecond)

	// Temporal down: every change below commits, no publish can succeed.
	temporal.stop()
	require.Equal(t, http.StatusOK, h.call("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"description": "renamed"}, nil))
	require.Equal(t, http.StatusOK, h.call("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": false}, nil))
	tryCall(h, "POST", "/v1/endpoints/"+ep.ID+"/recover", map[string]any{"reason": "fixed"}, 3*time.Second) // its wake-up needs Temporal
	require.Equal(t, http.StatusCreated, h.call("POST", "/v1/endpoints", map[string]any{"url": target.srv.URL, "tenant_id": "acme", "event_types": []string{"rel.other"}}, &other))
	require.Equal(t, http.StatusNoContent, h.call("DELETE", "/v1/endpoints/"+other.ID, nil, nil))
	tryCall(h, "POST", "/v1/events/"+ev.EventID+"/expunge", map[string]any{"reason": "erasure"}, 3*time.Second) // ending its deliveries needs Temporal
	var view wire.Endpoint
	require.Equal(t, http.StatusOK, h.call("GET", "/v1/endpoints/"+ep.ID, nil, &view))
	require.True(t, view.Enabled, "the recover's store part is done")
	time.Sleep(2 * time.Second) // both processes try, and fail, to publish
	killed.kill9()

	temporal.start()
	killed.start()
	wantEP := []string{
		"hookd.endpoint.created " + ep.ID + " ", "hookd.endpoint.disabled " + ep.ID + " ",
		"hookd.endpoint.enabled " + ep.ID + " fixed", "hookd.endpoint.updated " + ep.ID + " ",
	}
	wantOther := []string{"hookd.endpoint.created " + other.ID + " ", "hookd.endpoint.deleted " + other.ID + " "}
	wantEvent := []string{"hookd.event.expunged " + ev.EventID + " erasure"}
	for i, s := range []*holdingSink{platform, acme} {
		require.Eventually(t, func() bool {
			a, _ := s.received(ep.ID)
			b, _ := s.received(other.ID)
			c, _ := s.received(ev.EventID)
			return len(a) >= len(wantEP) && len(b) >= len(wantOther) && len(c) >= len(wantEvent)
		}, 3*time.Minute, 200*time.Millisecond, "subscriber %d", i)
	}
	time.Sleep(3 * time.Second) // a second copy would land by now
	for i, s := range []*holdingSink{platform, acme} {
		for subject, want := range map[string][]string{ep.ID: wantEP, other.ID: wantOther, ev.EventID: wantEvent} {
			got, answers := s.received(subject)
			require.Equal(t, want, got, "subscriber %d: each event once", i)
			for _, n := range answers {
				require.Equal(t, 1, n, "subscriber %d: each delivered once", i)
			}
		}
	}
	for _, subject := range []string{ep.ID, other.ID, ev.EventID} {
		got, _ := globex.received(subject)
		require.Empty(t, got, "another tenant's subscriber")
	}
	report(row{scenario: "operational events across Temporal down + kill -9", accepted: 2 * 7, delivered: 2 * 7,
		note: "7 events recorded by a process killed before publishing; 2 serve processes"})
}
