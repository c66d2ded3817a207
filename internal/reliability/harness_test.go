package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/testkit"
	"github.com/hookd/hookd/receiver/reference"
)

var (
	hookdBin string
	full     = os.Getenv("HOOKD_RELIABILITY") == "full"
)

func TestMain(m *testing.M) {
	var err error
	if hookdBin, err = testkit.HookdBinary(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	printTable()
	_ = os.RemoveAll(filepath.Dir(hookdBin))
	os.Exit(code)
}

// row is one scenario's figures.
type row struct {
	scenario                                             string
	accepted, delivered, duplicates, effects, dead, lost int
	note                                                 string
}

var (
	rowsMu sync.Mutex
	rows   []row
)

func report(r row) {
	rowsMu.Lock()
	defer rowsMu.Unlock()
	rows = append(rows, r)
}

func printTable() {
	rowsMu.Lock()
	defer rowsMu.Unlock()
	if len(rows) == 0 {
		return
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "\nscenario\taccepted\tdelivered\tduplicates seen\teffects\tdead letters\tlost\tnote")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", r.scenario, r.accepted, r.delivered, r.duplicates, r.effects, r.dead, r.lost, r.note)
	}
	_ = w.Flush()
}

// hookd is a `hookd dev` child process on a data dir and ports of its
// own, which a scenario may kill and start again.
type hookd struct {
	t       *testing.T
	dataDir string
	http    string
	tempo   string
	proc    *testkit.Proc
	url     string
	key     string
}

// startHookd starts `hookd dev` on a new data dir with free ports.
func startHookd(t *testing.T, extra ...string) *hookd {
	h := &hookd{t: t, dataDir: t.TempDir(), http: testkit.FreeAddr(t), tempo: testkit.FreeAddr(t)}
	h.url = "http://" + h.http
	args := append([]string{"dev", "--data-dir", h.dataDir, "--http-addr", h.http, "--temporal-addr", h.tempo, "--ui-addr", "", "--log-level", "warn"}, extra...)
	h.proc = testkit.StartProc(t, "hookd", hookdBin, nil, args...)
	h.ready()
	return h
}

// start starts hookd again on the same data dir and ports.
func (h *hookd) start() {
	h.proc.Start()
	h.ready()
}

// ready waits until hookd answers /healthz, then reads its API key.
func (h *hookd) ready() {
	h.proc.AwaitOK(h.url+"/healthz", 60*time.Second)
	key, err := os.ReadFile(filepath.Join(h.dataDir, "api-key"))
	require.NoError(h.t, err)
	h.key = strings.TrimSpace(string(key))
}

// kill9 kills the process without letting it clean up.
func (h *hookd) kill9() { h.proc.Kill9() }

// call sends an API request and decodes the JSON answer.
func (h *hookd) call(method, path string, body, out any) int {
	h.t.Helper()
	raw, err := json.Marshal(body)
	require.NoError(h.t, err)
	req, err := http.NewRequest(method, h.url+path, bytes.NewReader(raw))
	require.NoError(h.t, err)
	req.Header.Set("Authorization", "Bearer "+h.key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	if out != nil {
		require.NoError(h.t, json.NewDecoder(resp.Body).Decode(out))
	}
	return resp.StatusCode
}

// endpoint creates an endpoint for eventType at url and returns its ID and
// secret.
func (h *hookd) endpoint(url, eventType string, schedule ...string) (string, string) {
	var ep wire.Endpoint
	body := map[string]any{"url": url, "event_types": []string{eventType}}
	if len(schedule) > 0 {
		body["retry_schedule"] = schedule
	}
	require.Equal(h.t, http.StatusCreated, h.call("POST", "/v1/endpoints", body, &ep))
	return ep.ID, ep.Secret
}

// sendBatch posts n events of eventType in batches of 100 and returns how
// many were accepted.
func (h *hookd) sendBatch(eventType string, n int) int {
	accepted := 0
	for start := 0; start < n; start += 100 {
		var events []map[string]any
		for i := start; i < min(n, start+100); i++ {
			events = append(events, map[string]any{"type": eventType, "payload": map[string]int{"i": i}})
		}
		var res wire.EventBatchResults
		require.Equal(h.t, http.StatusOK, h.call("POST", "/v1/events/batch", map[string]any{"events": events}, &res))
		for _, r := range res.Results {
			if r.Status == http.StatusAccepted {
				accepted++
			}
		}
	}
	return accepted
}

func (h *hookd) deadLetters() int {
	var sum wire.DeadLetterSummary
	require.Equal(h.t, http.StatusOK, h.call("GET", "/v1/dead-letters/summary", nil, &sum))
	return int(sum.Total)
}

// sink is the reference receiver on a loopback port.
type sink struct {
	*reference.Receiver
	url string
}

// newSink creates an endpoint for eventType pointing at a fresh loopback
// port, then starts the reference receiver there with the endpoint's
// secret and the given faults.
func newSink(t *testing.T, h *hookd, eventType string, faults reference.Faults, schedule ...string) (*sink, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + l.Addr().String()
	id, secret := h.endpoint(url+"/hooks", eventType, schedule...)
	rcv, err := reference.New(reference.Config{DBPath: filepath.Join(t.TempDir(), "inbox.db"), Secrets: []string{secret}, Faults: faults})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = rcv.Serve(ctx, l); close(done) }()
	t.Cleanup(func() { cancel(); <-done; _ = rcv.Close() })
	return &sink{Receiver: rcv, url: url}, id
}

// tally reads the receiver's figures: distinct deliveries with an effect,
// total effects, and duplicates it saw.
func (s *sink) tally(t *testing.T) (delivered, effects, duplicates int) {
	t.Helper()
	st, err := s.Stats(context.Background())
	require.NoError(t, err)
	for _, n := range st.Effects {
		delivered++
		effects += n
	}
	return delivered, effects, int(st.Duplicates)
}
