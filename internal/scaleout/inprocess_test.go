package scaleout

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/embedded"
	"github.com/hookd/hookd/internal/namespace"
	"github.com/hookd/hookd/internal/store/pgtest"
	"github.com/hookd/hookd/internal/store/secretbox"
	"github.com/hookd/hookd/internal/testkit"
)

// TestServeInProcess is the quick version of TestScaleOut that `make test`
// runs: the same wiring (app.StartServe) as a worker and an API in this
// process against an embedded Temporal server and PostgreSQL; probes,
// production URL policy, deliveries and a graceful stop.
func TestServeInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Temporal and PostgreSQL; skipped with -short")
	}
	cfg := inProcessConfig(t)
	ctx := context.Background()
	start := func(api, worker bool) *app.Serve {
		c := cfg
		c.API, c.Worker = api, worker
		s, err := app.StartServe(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	worker, apiSrv := start(false, true), start(true, false)
	defer worker.Stop(ctx)
	for _, s := range []*app.Serve{worker, apiSrv} {
		for _, probe := range []string{"/healthz", "/readyz"} {
			if code := get(t, s.HTTPURL+probe); code != http.StatusOK {
				t.Errorf("%s%s: %d", s.HTTPURL, probe, code)
			}
		}
	}
	if code := get(t, worker.HTTPURL+"/v1/endpoints"); code != http.StatusNotFound {
		t.Errorf("worker serves the API: %d", code)
	}
	if code := get(t, apiSrv.HTTPURL+"/v1/endpoints"); code != http.StatusUnauthorized {
		t.Errorf("API without a key: %d, want 401", code)
	}

	api := &apiClient{t: t, base: apiSrv.HTTPURL, key: cfg.APIKeys[0]}
	rc := newReceiver(t, 0)
	var ep wire.Endpoint
	if code := api.do("POST", "/v1/endpoints", map[string]any{"url": rc.URL}, &ep); code != http.StatusCreated {
		t.Fatalf("create endpoint: %d", code)
	}
	rc.setSecret(t, ep.Secret)
	for _, u := range []string{"http://127.0.0.2:9/", "https://169.254.169.254/", "http://example.com/"} {
		if code := api.do("POST", "/v1/endpoints", map[string]any{"url": u}, nil); code != http.StatusBadRequest {
			t.Errorf("create endpoint %s: %d, want 400", u, code)
		}
	}
	const events = 50
	t0 := time.Now()
	ids := api.sendEvents(events)
	deadline := time.Now().Add(time.Minute)
	for u, _ := rc.counts(); u < events; u, _ = rc.counts() {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d delivered", u, events)
		}
		time.Sleep(20 * time.Millisecond)
	}
	unique, total := rc.counts()
	if len(ids) != events || unique != events || rc.bad.Load() != 0 {
		t.Errorf("accepted %d, delivered %d, unverifiable %d", len(ids), unique, rc.bad.Load())
	}
	t.Logf("%d events delivered in %s (%d requests)", unique, time.Since(t0).Round(time.Millisecond), total)

	// A worker outage: with no worker running the API keeps accepting;
	// nothing is refused or lost, and deliveries resume with a worker.
	worker.Stop(ctx)
	more := api.sendEventsFrom(events, events)
	time.Sleep(2 * time.Second)
	if u, _ := rc.counts(); len(more) != events || u != events {
		t.Fatalf("without a worker: accepted %d of %d, deliveries seen %d (want %d)", len(more), events, u, events)
	}
	t1 := time.Now()
	worker = start(false, true)
	deadline = time.Now().Add(time.Minute)
	for u, _ := rc.counts(); u < 2*events; u, _ = rc.counts() {
		if time.Now().After(deadline) {
			t.Fatalf("after the worker returned: %d of %d delivered", u-events, events)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for id := range more {
		if rc.seen[id] == 0 {
			t.Errorf("lost %s", id)
		}
	}
	t.Logf("worker outage: %d events accepted with no worker, all delivered %s after it returned", events, time.Since(t1).Round(time.Millisecond))

	// Two API processes on one PostgreSQL race conflicting posts
	// of one event ID; one payload wins everywhere.
	api2Srv := start(true, false)
	defer api2Srv.Stop(ctx)
	winner := raceAcrossAPIs(t, api, &apiClient{t: t, base: api2Srv.HTTPURL, key: cfg.APIKeys[0]})
	t.Logf("two API processes, 12 conflicting posts: payload %s won", winner)

	url := apiSrv.HTTPURL
	apiSrv.Stop(ctx)
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Error("API still accepts connections after Stop")
	}
}

// inProcessConfig starts an embedded Temporal server and a PostgreSQL for
// the test and returns the ServeConfig of a serve wiring on them (API
// and Worker not set).
func inProcessConfig(t *testing.T) app.ServeConfig {
	logger := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	temporalAddr := testkit.FreeAddr(t)
	srv, err := embedded.Start(embedded.Options{DataDir: filepath.Join(t.TempDir(), "temporal"), FrontendAddr: temporalAddr,
		Namespace: "default", Logger: logger, LogLevel: slog.LevelError, SearchAttributes: delivery.SearchAttributes()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	key, err := secretbox.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	payloadKey, err := secretbox.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	cfg := app.ServeConfig{
		Temporal:    app.TemporalConfig{Address: temporalAddr, Namespace: "default"},
		DatabaseURL: pgtest.Start(t),
		MasterKey:   key,
		Payload:     app.PayloadConfig{Keys: [][]byte{payloadKey}},
		APIKeys:     []string{randomToken()},
		HTTPAddr:    "127.0.0.1:0",
		AllowCIDRs:  []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Retention:   namespace.DefaultRetention, // the dedup window; the embedded namespace keeps 24h (hookd warns)
		Logger:      logger,
	}
	return cfg
}

func get(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(fmt.Errorf("GET %s: %w", url, err))
	}
	resp.Body.Close()
	return resp.StatusCode
}
