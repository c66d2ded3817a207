package scaleout

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/store/pgtest"
	"github.com/hookd/hookd/internal/store/secretbox"
	"github.com/hookd/hookd/internal/testkit"
)

// FullEnv set to 1 runs the multi-process test with 1000 deliveries, set
// to smoke with 100; unset, the test is skipped (building the binary alone
// takes 20s) and TestServeInProcess covers the wiring.
const FullEnv = "HOOKD_SCALEOUT"

// TestScaleOut runs one Temporal server process, PostgreSQL, two workers
// and one API as separate processes, sends events in batches, kills one
// worker with SIGKILL mid-run, and checks that every delivery reaches a
// deduplicating receiver: none lost, repeats only as repeated webhook-ids.
// Then it stops the rest with SIGTERM and checks they exit cleanly.
func TestScaleOut(t *testing.T) {
	events := 0
	switch os.Getenv(FullEnv) {
	case "1":
		events = 1000
	case "smoke":
		events = 100
	default:
		t.Skipf("builds hookd and runs it as processes (~40s); set %s=1 (1000 deliveries, make test-scaleout) or %s=smoke (100)", FullEnv, FullEnv)
	}
	if n, err := strconv.Atoi(os.Getenv("HOOKD_SCALEOUT_EVENTS")); err == nil && n > 0 {
		events = n
	}
	bin := buildHookd(t)
	dbURL := pgtest.Start(t)

	temporalAddr, temporalPprof := testkit.FreeAddr(t), testkit.FreeAddr(t)
	temporal := testkit.StartProc(t, "temporal", bin, nil, "dev", "--only-temporal",
		"--data-dir", filepath.Join(t.TempDir(), "temporal"), "--temporal-addr", temporalAddr,
		"--ui-addr", "", "--retention", "168h", "--log-level", "warn", "--pprof-addr", temporalPprof)
	temporal.AwaitPrinted("is running", 2*time.Minute)

	key, err := secretbox.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	payloadKey, err := secretbox.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	apiKey := randomToken()
	common := []string{
		"TEMPORAL_ADDRESS=" + temporalAddr,
		"TEMPORAL_NAMESPACE=default",
		"HOOKD_DATABASE_URL=" + dbURL,
		"HOOKD_MASTER_KEY=" + secretbox.EncodeKey(key),
		"HOOKD_PAYLOAD_KEYS=" + secretbox.EncodeKey(payloadKey),
		"HOOKD_ALLOW_CIDRS=127.0.0.1/32",
		"HOOKD_RETENTION=168h",
		"HOOKD_SHUTDOWN_TIMEOUT=10s",
		"HOOKD_LOG_FORMAT=text",
	}
	var workers []*testkit.Proc
	for i := range 2 {
		addr := testkit.FreeAddr(t)
		w := testkit.StartProc(t, fmt.Sprintf("worker%d", i+1), bin, append(common, "HOOKD_HTTP_ADDR="+addr), "worker")
		w.AwaitOK("http://"+addr+"/readyz", time.Minute)
		workers = append(workers, w)
	}
	apiAddr, apiPprof := testkit.FreeAddr(t), testkit.FreeAddr(t)
	apiProc := testkit.StartProc(t, "api", bin, append(common, "HOOKD_HTTP_ADDR="+apiAddr, "HOOKD_API_KEYS="+apiKey, "HOOKD_PPROF_ADDR="+apiPprof), "api")
	apiProc.AwaitOK("http://"+apiAddr+"/readyz", time.Minute)
	checkProfiles(t, temporalPprof, "go.temporal.io/server/service/history")
	checkProfiles(t, apiPprof, "github.com/hookd/hookd/internal/app")
	api := &apiClient{t: t, base: "http://" + apiAddr, key: apiKey}

	rc := newReceiver(t, 5*time.Millisecond)
	var ep wire.Endpoint
	if code := api.do("POST", "/v1/endpoints", map[string]any{"url": rc.URL + "/hook"}, &ep); code != http.StatusCreated {
		t.Fatalf("create endpoint: %d", code)
	}
	rc.setSecret(t, ep.Secret)
	// Production mode: a loopback URL outside the allow-list is refused.
	if code := api.do("POST", "/v1/endpoints", map[string]any{"url": "http://127.0.0.2:9/hook"}, nil); code != http.StatusBadRequest {
		t.Errorf("create endpoint outside the allow-list: status %d, want 400", code)
	}

	// Kill worker 1 once a quarter of the deliveries have arrived.
	start := time.Now()
	killedAt := make(chan int, 1)
	go func() {
		for {
			if u, _ := rc.counts(); u >= events/4 {
				workers[0].Kill9()
				killedAt <- u
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	ids := api.sendEvents(events)
	ingested := time.Since(start)
	if len(ids) != events {
		t.Fatalf("accepted %d deliveries for %d events", len(ids), events)
	}

	deadline := time.Now().Add(3 * time.Minute)
	for {
		u, _ := rc.counts()
		if u >= events {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d deliveries arrived within 3m\n%s\n%s", u, events, workers[1].Tail(), apiProc.Tail())
		}
		time.Sleep(20 * time.Millisecond)
	}
	allIn := time.Since(start)
	killU := <-killedAt
	time.Sleep(time.Second) // let late repeats land before counting
	unique, total := rc.counts()

	rc.mu.Lock()
	var lost, foreign, repeated int
	for id := range ids {
		if rc.seen[id] == 0 {
			lost++
		}
	}
	for id, n := range rc.seen {
		if !ids[id] {
			foreign++
		}
		if n > 1 {
			repeated++
		}
	}
	rc.mu.Unlock()
	if lost > 0 || foreign > 0 || rc.bad.Load() > 0 {
		t.Errorf("lost %d, unknown webhook-ids %d, unverifiable requests %d", lost, foreign, rc.bad.Load())
	}
	if total-unique != sumExtra(rc) {
		t.Errorf("requests %d - unique %d does not match the repeats counted by webhook-id", total, unique)
	}
	statuses := api.statuses(ids)
	if statuses["delivered"] != events {
		t.Errorf("delivery statuses from the API: %v, want all %d delivered", statuses, events)
	}

	// Graceful shutdown: SIGTERM, clean exits.
	for _, p := range []*testkit.Proc{apiProc, workers[1]} {
		t0 := time.Now()
		err, inTime := p.Stop(40 * time.Second)
		if err != nil || !inTime {
			t.Errorf("%s: SIGTERM exit %v (in time: %v)\n%s", p.Name, err, inTime, p.Tail())
		}
		t.Logf("%s stopped on SIGTERM in %s", p.Name, time.Since(t0).Round(time.Millisecond))
	}

	t.Logf("events %d, deliveries accepted %d in %s (%.0f/s)", events, len(ids), ingested.Round(time.Millisecond), float64(events)/ingested.Seconds())
	t.Logf("worker1 killed (SIGKILL) after %d deliveries had arrived", killU)
	t.Logf("all %d delivered in %s (%.0f/s end to end)", unique, allIn.Round(time.Millisecond), float64(events)/allIn.Seconds())
	t.Logf("receiver: %d requests, %d unique webhook-ids, %d repeated requests over %d webhook-ids, %d lost", total, unique, total-unique, repeated, lost)
	fmt.Printf("SCALEOUT events=%d delivered=%d lost=%d requests=%d duplicates=%d duplicate_ids=%d killed_after=%d ingest=%s all_delivered=%s\n",
		events, unique, lost, total, total-unique, repeated, killU, ingested.Round(time.Millisecond), allIn.Round(time.Millisecond))
}

// sumExtra counts requests beyond the first per webhook-id.
func sumExtra(rc *receiver) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := 0
	for _, c := range rc.seen {
		n += c - 1
	}
	return n
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "hk_" + base64.RawURLEncoding.EncodeToString(b)
}

// apiClient calls the hookd API process.
type apiClient struct {
	t         *testing.T
	base, key string
}

func (c *apiClient) do(method, path string, body, out any) int {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Errorf("%s %s: %v", method, path, err)
		return 0
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			c.t.Errorf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
	}
	return resp.StatusCode
}

// sendEvents posts n events through /v1/events/batch, four batches at a
// time, and returns the delivery IDs accepted.
func (c *apiClient) sendEvents(n int) map[string]bool { return c.sendEventsFrom(0, n) }

// sendEventsFrom sends events numbered first to first+n-1.
func (c *apiClient) sendEventsFrom(first, n int) map[string]bool {
	var mu sync.Mutex
	ids := map[string]bool{}
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for from := first; from < first+n; from += 100 {
		to := min(from+100, first+n)
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			var evs []map[string]any
			for i := from; i < to; i++ {
				evs = append(evs, map[string]any{"event_id": fmt.Sprintf("evt-%05d", i), "type": "order.created", "payload": map[string]int{"n": i}})
			}
			var out wire.EventBatchResults
			if code := c.do("POST", "/v1/events/batch", map[string]any{"events": evs}, &out); code != http.StatusOK {
				c.t.Errorf("batch %d-%d: status %d", from, to, code)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for i, r := range out.Results {
				ds := wire.Deref(r.Deliveries)
				if r.Status != http.StatusAccepted || len(ds) != 1 {
					c.t.Errorf("event %d: status %d, %d deliveries", from+i, r.Status, len(ds))
					continue
				}
				ids[ds[0].ID] = true
			}
		})
	}
	wg.Wait()
	return ids
}

// statuses returns how many deliveries the API reports in each status.
func (c *apiClient) statuses(ids map[string]bool) map[string]int {
	var mu sync.Mutex
	counts := map[string]int{}
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for id := range ids {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			var d struct{ Status string }
			deadline := time.Now().Add(30 * time.Second)
			for c.do("GET", "/v1/deliveries/"+id, nil, &d) == http.StatusOK && d.Status == "pending" && time.Now().Before(deadline) {
				time.Sleep(200 * time.Millisecond)
			}
			mu.Lock()
			counts[d.Status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return counts
}

// checkProfiles asserts that the process serving profiles at addr is the
// one running code under frame (its goroutine dump names it) and that it
// keeps its command line, which may carry secrets, to itself.
func checkProfiles(t *testing.T, addr, frame string) {
	t.Helper()
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/debug/pprof/goroutine?debug=1"); code != http.StatusOK || !strings.Contains(body, frame) {
		t.Errorf("goroutines on %s: %d, %d bytes, want %s in them", addr, code, len(body), frame)
	}
	if code, _ := get("/debug/pprof/cmdline"); code != http.StatusNotFound {
		t.Errorf("command line on %s: %d, want 404", addr, code)
	}
}
