package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/testkit"
	"github.com/hookd/hookd/signing"
)

// shared is the hookd instance most tests share; each test makes its own
// endpoints and receivers, so they do not interfere.
var shared *app.Dev

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hookd-e2e-")
	if err != nil {
		panic(err)
	}
	temporalAddr, err := testkit.FreeAddrErr()
	if err != nil {
		panic(err)
	}
	shared, err = startDev(dir, temporalAddr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "start hookd:", err)
		os.Exit(1)
	}
	code := contractReport(m.Run())
	shared.Stop(context.Background())
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// ownDev starts a hookd dev of the test's own, on a fresh data dir, with
// warnings logged and set's changes to the config; cleanup stops it.
func ownDev(t *testing.T, set func(*app.DevConfig)) *app.Dev {
	cfg := app.DevConfig{
		DataDir: t.TempDir(), HTTPAddr: "127.0.0.1:0", TemporalAddr: testkit.FreeAddr(t),
		Logger:           slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		TemporalLogLevel: slog.LevelError, Version: "test", WorkflowCacheSize: e2eWorkflowCache,
	}
	set(&cfg)
	dev, err := app.StartDev(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { dev.Stop(context.Background()) })
	return dev
}

// startDev starts the hookd dev the e2e tests share, its embedded Temporal
// on temporalAddr.
func startDev(dir, temporalAddr string) (*app.Dev, error) {
	level := slog.LevelWarn
	if os.Getenv("HOOKD_E2E_LOG") != "" {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	return app.StartDevTuned(context.Background(), app.DevConfig{
		DataDir:          dir,
		HTTPAddr:         "127.0.0.1:0",
		TemporalAddr:     temporalAddr,
		Logger:           logger,
		TemporalLogLevel: slog.LevelError,
		Version:          "test",
		// Short enough for tests to watch a circuit open, probe and close.
		Circuit:           circuit.Policy{Threshold: 5, BaseCooldown: 2 * time.Second, MaxCooldown: 8 * time.Second},
		WorkflowCacheSize: e2eWorkflowCache,
		// Every test calls from 127.0.0.1, and the isolation tests expect
		// 401 on every route: no throttle of failed authentications.
		AuthFailureLimit: 1 << 20,
	}, app.Tuning{DisabledPoll: 500 * time.Millisecond})
}

// apiClient calls the hookd API of a Dev, with its API key or, when set,
// a tenant token.
type apiClient struct {
	t     *testing.T
	dev   *app.Dev
	token string
}

func newAPI(t *testing.T) *apiClient { return &apiClient{t: t, dev: shared} }

// do sends a request and returns the status and decoded JSON body.
func (c *apiClient) do(method, path string, body any, out any) int {
	c.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = bytes.NewBufferString(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(c.t, err)
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.dev.APIURL+path, r)
	require.NoError(c.t, err)
	key := c.dev.APIKey
	if c.token != "" {
		key = c.token
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	if out != nil && len(raw) > 0 {
		require.NoError(c.t, json.Unmarshal(raw, out), "body: %s", raw)
	}
	return resp.StatusCode
}

// endpoint is an endpoint as the API answers it (with its secret only
// from create and rotate).
type endpoint = wire.Endpoint

// apiError is the body of every API error.
type apiError = wire.ErrorBody

// eventRecord is GET /v1/events/{id}, and an expunge's answer.
type eventRecord = wire.EventRecord

// health is GET /v1/endpoints/{id}/health.
type health = wire.EndpointHealth

func (c *apiClient) createEndpoint(body map[string]any) endpoint {
	c.t.Helper()
	var ep endpoint
	require.Equal(c.t, http.StatusCreated, c.do("POST", "/v1/endpoints", body, &ep))
	require.NotEmpty(c.t, ep.Secret)
	return ep
}

// accepted is an accepted event: its deliveries, and whether it had been
// accepted before.
type accepted = wire.EventAccepted

func (c *apiClient) send(body string) accepted {
	c.t.Helper()
	var a accepted
	require.Equal(c.t, http.StatusAccepted, c.do("POST", "/v1/events", body, &a))
	return a
}

// attempt is a timeline entry: an attempt, or (Kind "redrive") the
// redrive that started run Run.
type attempt = wire.TimelineEntry

// attemptEnd is when the attempt's request finished, as the attempt
// recorded it.
func attemptEnd(a attempt) time.Time {
	return a.Start.Add(time.Duration(wire.Deref(a.DurationMS) * float64(time.Millisecond)))
}

// deliveryState is GET /v1/deliveries/{id}.
type deliveryState = wire.Delivery

// waitDelivery polls a delivery until it leaves "pending" or the deadline.
func (c *apiClient) waitDelivery(id string, within time.Duration) deliveryState {
	c.t.Helper()
	var (
		mu   sync.Mutex
		d    deliveryState
		last string // the status last read, or the HTTP status
	)
	ok := assert.Eventually(c.t, func() bool {
		var got deliveryState
		code := c.do("GET", "/v1/deliveries/"+id, nil, &got)
		mu.Lock()
		defer mu.Unlock()
		d, last = got, string(got.Status)
		if code != http.StatusOK {
			last = fmt.Sprintf("HTTP %d", code)
		}
		return code == http.StatusOK && got.Status != "pending"
	}, within, 50*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if !ok {
		c.t.Fatalf("delivery %s still %s after %s", id, last, within)
	}
	return d
}

// barrier posts a sentinel event of eventType and waits until it is
// delivered, returning its event ID. A test that checks that nothing more
// reached a receiver calls it first: ingest answered everything posted
// before the sentinel, and the pipeline has since delivered a later event,
// so the check follows a positive signal instead of a fixed sleep.
func (c *apiClient) barrier(eventType string) string {
	c.t.Helper()
	a := c.send(fmt.Sprintf(`{"type":%q,"payload":{"barrier":true}}`, eventType))
	require.Len(c.t, a.Deliveries, 1, "the barrier's event type must match exactly one endpoint")
	require.EqualValues(c.t, "delivered", c.waitDelivery(a.Deliveries[0].ID, 10*time.Second).Status)
	return a.EventID
}

// hit is one request a receiver saw.
type hit struct {
	At     time.Time
	Header http.Header
	Body   []byte
}

// receiver is a loopback webhook receiver that records every request and
// answers with what respond returns (200 by default).
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	hits    []hit
	respond func(n int, w http.ResponseWriter) // n is 1-based
}

func newReceiver(t *testing.T, respond func(n int, w http.ResponseWriter)) *receiver {
	rc := &receiver{respond: respond}
	rc.Server = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.hits = append(rc.hits, hit{At: time.Now(), Header: r.Header.Clone(), Body: body})
		n := len(rc.hits)
		rc.mu.Unlock()
		if rc.respond != nil {
			rc.respond(n, w)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	return rc
}

// serve starts a loopback HTTP server for the test.
func serve(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func (rc *receiver) Hits() []hit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hit(nil), rc.hits...)
}

// verify checks a hit's Standard Webhooks signature with the secret.
func verify(t *testing.T, h hit, secrets ...string) string {
	t.Helper()
	v, err := signing.NewVerifier(secrets...)
	require.NoError(t, err)
	id, _, err := v.Verify(h.Body, h.Header)
	require.NoError(t, err)
	return id
}
