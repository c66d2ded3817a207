package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testKey = "hk_test"

// request is what the fake API saw.
type request struct {
	Method, Path, Query, Body, Auth string
}

// fakeAPI answers canned JSON per route and records every request.
type fakeAPI struct {
	mux  *http.ServeMux
	mu   sync.Mutex
	seen []request
}

// newFakeAPI starts a fake API and points the client flags' environment
// defaults at it.
func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{mux: http.NewServeMux()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.seen = append(f.seen, request{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, string(body), r.Header.Get("Authorization")})
		f.mu.Unlock()
		f.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("HOOKD_API_URL", srv.URL)
	t.Setenv("HOOKD_API_KEY", testKey)
	return f
}

// on answers pattern (such as "GET /v1/endpoints/{id}") with status and body.
func (f *fakeAPI) on(pattern string, status int, body string) {
	f.onSeq(pattern, status, body)
}

// onSeq answers pattern with each body in turn, repeating the last.
func (f *fakeAPI) onSeq(pattern string, status int, bodies ...string) {
	var mu sync.Mutex
	n := 0
	f.mux.HandleFunc(pattern, func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		body := bodies[min(n, len(bodies)-1)]
		n++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
}

func (f *fakeAPI) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.seen...)
}

// only returns the single request the fake saw.
func (f *fakeAPI) only(t *testing.T) request {
	t.Helper()
	reqs := f.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "Bearer "+testKey, reqs[0].Auth)
	return reqs[0]
}

// cli runs hookd with args, as the binary does, and returns what it
// printed and the error it failed with.
func cli(args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	err = newEnv(strings.NewReader(""), &out, &errOut).runArgs(context.Background(), args)
	return out.String(), errOut.String(), err
}

// testEnv is a client environment with a fixed clock and fast polling.
func testEnv(tty bool) (*clientEnv, *bytes.Buffer) {
	var out bytes.Buffer
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return &clientEnv{
		stdout: &out, stderr: io.Discard, stdin: strings.NewReader(""), tty: tty,
		now: func() time.Time { return now }, poll: time.Millisecond,
	}, &out
}

const endpointJSON = `{"id":"ep_1","url":"https://example.com/hook","description":"D","event_types":["order.created","order.paid"],
"enabled":true,"retry_schedule":["1s","5s"],"timeout":"10s","metadata":{},"created_at":"2026-11-30T10:00:00Z","updated_at":"2026-11-30T10:00:00Z"`

func TestEndpointsCreate(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/endpoints", 201, endpointJSON+`,"secret":"whsec_abc"}`)
	out, _, err := cli("endpoints", "create", "--url", "https://example.com/hook", "--event-type", "order.created",
		"--event-type", "order.paid", "--retry-schedule", "1s,5s", "--timeout", "10s", "--description", "D")
	require.NoError(t, err)
	req := f.only(t)
	assert.Equal(t, "/v1/endpoints", req.Path)
	assert.JSONEq(t, `{"url":"https://example.com/hook","description":"D","event_types":["order.created","order.paid"],
		"retry_schedule":["1s","5s"],"timeout":"10s"}`, req.Body)
	assert.Regexp(t, `ID\s+ep_1`, out)
	assert.Regexp(t, `Event types\s+order.created, order.paid`, out)
	assert.Regexp(t, `Secret\s+whsec_abc`, out)
	assert.Contains(t, out, "shown only now")
}

func TestEndpointsUpdateSendsOnlyWhatIsSet(t *testing.T) {
	for _, args := range [][]string{
		{"endpoints", "update", "ep_1", "--enabled=false"},
		{"endpoints", "update", "--enabled=false", "ep_1"},
	} {
		f := newFakeAPI(t)
		f.on("PATCH /v1/endpoints/{id}", 200, strings.Replace(endpointJSON, `"enabled":true`, `"enabled":false`, 1)+"}")
		out, _, err := cli(args...)
		require.NoError(t, err)
		req := f.only(t)
		assert.Equal(t, "/v1/endpoints/ep_1", req.Path)
		assert.JSONEq(t, `{"enabled":false}`, req.Body)
		assert.Regexp(t, `Enabled\s+false`, out)
		assert.NotContains(t, out, "Secret")
	}
}

func TestEndpointsUpdateNeedsAChange(t *testing.T) {
	newFakeAPI(t)
	_, _, err := cli("endpoints", "update", "ep_1")
	require.ErrorContains(t, err, "endpoints update: nothing to update")
}

func TestEndpointsGetJSONPrintsTheAPIAnswer(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/endpoints/{id}", 200, endpointJSON+`,"future_field":1}`)
	out, _, err := cli("endpoints", "get", "ep_1", "--json")
	require.NoError(t, err)
	assert.Equal(t, "/v1/endpoints/ep_1", f.only(t).Path)
	assert.JSONEq(t, endpointJSON+`,"future_field":1}`, out)
}

func TestEndpointsListFollowsCursorsWithAll(t *testing.T) {
	f := newFakeAPI(t)
	f.onSeq("GET /v1/endpoints", 200,
		`{"data":[`+endpointJSON+`}],"next_cursor":"c2"}`,
		`{"data":[`+strings.Replace(endpointJSON, "ep_1", "ep_2", 1)+`}]}`)
	out, _, err := cli("endpoints", "list", "--all", "--limit", "1")
	require.NoError(t, err)
	reqs := f.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "limit=1", reqs[0].Query)
	assert.Equal(t, "cursor=c2&limit=1", reqs[1].Query)
	assert.Regexp(t, `(?m)^ID\s+URL\s+EVENT TYPES\s+ENABLED\s+CREATED$`, out)
	assert.Regexp(t, `(?m)^ep_1\s+https://example.com/hook\s+order.created,order.paid\s+true`, out)
	assert.Contains(t, out, "ep_2")
}

func TestEndpointsListHintsAtTheNextPage(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/endpoints", 200, `{"data":[`+endpointJSON+`}],"next_cursor":"c2"}`)
	_, stderr, err := cli("endpoints", "list")
	require.NoError(t, err)
	assert.Len(t, f.requests(), 1)
	assert.Contains(t, stderr, "--cursor c2")
}

func TestEndpointsDeleteAndRotate(t *testing.T) {
	f := newFakeAPI(t)
	f.on("DELETE /v1/endpoints/{id}", 204, "")
	f.on("POST /v1/endpoints/{id}/secret/rotate", 200, `{"endpoint_id":"ep_1","secret":"whsec_new","previous_expires_at":"2026-11-30T13:00:00Z"}`)
	out, _, err := cli("endpoints", "delete", "ep_1")
	require.NoError(t, err)
	assert.Equal(t, "Deleted endpoint ep_1.\n", out)
	out, _, err = cli("endpoints", "rotate", "ep_1", "--overlap", "1h")
	require.NoError(t, err)
	reqs := f.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, request{"DELETE", "/v1/endpoints/ep_1", "", "", "Bearer " + testKey}, reqs[0])
	assert.Equal(t, "/v1/endpoints/ep_1/secret/rotate", reqs[1].Path)
	assert.JSONEq(t, `{"overlap":"1h0m0s"}`, reqs[1].Body)
	assert.Regexp(t, `New secret\s+whsec_new`, out)
	assert.Regexp(t, `Previous secret expires\s+2026-11-30T13:00:00Z`, out)
}

func TestEndpointsRecover(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/endpoints/{id}/recover", 200, `{"endpoint_id":"ep_1","by":"api-key:1a2b3c4d","reason":"receiver fixed","at":"2026-11-30T12:00:00Z",
"previous_circuit":"open","previous_consecutive_failures":1,"reenabled":true,"woken":12,"spread":"2s"}`)
	out, _, err := cli("endpoints", "recover", "ep_1", "--reason", "receiver fixed")
	require.NoError(t, err)
	req := f.only(t)
	assert.Equal(t, "/v1/endpoints/ep_1/recover", req.Path)
	assert.JSONEq(t, `{"reason":"receiver fixed"}`, req.Body)
	assert.Equal(t, "Recovered endpoint ep_1 (circuit was open with 1 consecutive failure; the endpoint was disabled and is enabled again).\n"+
		"12 waiting deliveries: attempted within 2s, spread so the receiver is not hit all at once.\n", out)

	out, _, err = cli("endpoints", "recover", "ep_1", "--json")
	require.NoError(t, err)
	assert.Contains(t, out, `"woken": 12`)
}

// A backlog too large to signal at once is paced, and the CLI says so.
func TestEndpointsRecoverPaced(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/endpoints/{id}/recover", 200, `{"endpoint_id":"ep_1","previous_circuit":"open","previous_consecutive_failures":5,"woken":100000,"paced":true}`)
	out, _, err := cli("endpoints", "recover", "ep_1")
	require.NoError(t, err)
	assert.Equal(t, "Recovered endpoint ep_1 (circuit was open with 5 consecutive failures).\n"+
		"100000 waiting deliveries: woken in the background, oldest first, as fast as they drain.\n", out)
}

func TestSendReadsThePayloadFromAFile(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/events", 202, `{"event_id":"evt_1","deliveries":[{"id":"dlv_a","endpoint_id":"ep_1"},{"id":"dlv_b","endpoint_id":"ep_2"}],"duplicate":false}`)
	file := filepath.Join(t.TempDir(), "p.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"order": 42}`+"\n"), 0o600))
	out, _, err := cli("send", "--type", "order.created", "--event-id", "evt_1", "--payload", "@"+file)
	require.NoError(t, err)
	req := f.only(t)
	assert.Equal(t, "/v1/events", req.Path)
	assert.JSONEq(t, `{"event_id":"evt_1","type":"order.created","payload":{"order":42}}`, req.Body)
	assert.Contains(t, out, "Event evt_1 accepted: 2 deliveries.")
	assert.Regexp(t, `(?m)^dlv_a\s+ep_1$`, out)
	assert.Regexp(t, `(?m)^dlv_b\s+ep_2$`, out)
}

func TestSendRefusesABadPayloadWithoutCallingTheAPI(t *testing.T) {
	f := newFakeAPI(t)
	for _, payload := range []string{`[1]`, `{"a":`, ``} {
		_, _, err := cli("send", "--type", "t", "--payload", payload)
		require.ErrorContains(t, err, "send: --payload")
	}
	assert.Empty(t, f.requests())
}

func TestAPIErrorsNameTheField(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/endpoints", 400, `{"error":{"code":"invalid","field":"url","message":"must be an absolute URL with a host"}}`)
	_, _, err := cli("endpoints", "create", "--url", "nope")
	require.EqualError(t, err, "endpoints create: url: must be an absolute URL with a host (HTTP 400 invalid)")

	f.on("GET /v1/deliveries/{id}", 404, `{"error":{"code":"not_found","message":"delivery not found"}}`)
	_, _, err = cli("deliveries", "get", "dlv_x")
	require.EqualError(t, err, "deliveries get: delivery not found (HTTP 404 not_found)")

	f.on("GET /v1/dead-letters/summary", 502, `<html>bad gateway</html>`)
	_, _, err = cli("dlq", "summary")
	require.EqualError(t, err, "dlq summary: <html>bad gateway</html> (HTTP 502)")
}

func TestUnreachableAPIHints(t *testing.T) {
	_, _, err := cli("dlq", "summary", "--api-url", "http://127.0.0.1:1", "--api-key", "k")
	require.ErrorContains(t, err, "is the API running?")
}

func TestAPIKeyFromTheDevDataDir(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/dead-letters/summary", 200, `{"total":0,"groups":[],"oldest_age_seconds":0}`)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "api-key"), []byte("hk_fromfile\n"), 0o600))
	t.Setenv("HOOKD_API_KEY", "")
	os.Unsetenv("HOOKD_API_KEY")
	t.Setenv("HOOKD_DATA_DIR", dir)
	out, _, err := cli("dlq", "summary")
	require.NoError(t, err)
	assert.Equal(t, "No dead letters.\n", out)
	assert.Equal(t, "Bearer hk_fromfile", f.requests()[0].Auth)

	t.Setenv("HOOKD_DATA_DIR", t.TempDir())
	_, _, err = cli("dlq", "summary")
	require.ErrorContains(t, err, "no API key")
}

const timelineJSON = `[
 {"number":1,"start":"2026-11-30T10:00:00Z","duration_ms":12.3,"status":500,"error_class":"http_5xx","outcome":"retryable","next_delay":"1s","delay_reason":"schedule","response":"boom"},
 {"number":2,"start":"2026-11-30T10:00:01Z","duration_ms":3001,"error_class":"timeout","error":"no answer within 3s","outcome":"retryable"}]`

func TestDeliveriesGetShowsTheTimeline(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/deliveries/{id}", 200, `{"id":"dlv_1","event_id":"evt_1","event_type":"order.created","endpoint_id":"ep_1",
		"status":"exhausted","attempts":2,"last_error":"timeout","created_at":"2026-11-30T10:00:00Z","timeline":`+timelineJSON+`}`)
	out, _, err := cli("deliveries", "get", "dlv_1")
	require.NoError(t, err)
	assert.Equal(t, "/v1/deliveries/dlv_1", f.only(t).Path)
	assert.Regexp(t, `Event\s+evt_1 \(order.created\)`, out)
	assert.Regexp(t, `Status\s+exhausted`, out)
	assert.Regexp(t, `Last result\s+timeout`, out)
	assert.Regexp(t, `(?m)^#\s+STARTED\s+DURATION\s+RESULT\s+OUTCOME\s+NEXT$`, out)
	assert.Regexp(t, `(?m)^1\s+2026-11-30T10:00:00Z\s+12ms\s+HTTP 500\s+retryable\s+1s \(schedule\)$`, out)
	assert.Regexp(t, `(?m)^2\s+2026-11-30T10:00:01Z\s+3.001s\s+timeout: no answer within 3s\s+retryable\s+-$`, out)
}

// A redriven delivery's timeline shows both runs, the redrive between.
func TestDeliveriesGetShowsEveryRun(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/deliveries/{id}", 200, `{"id":"dlv_1","event_id":"evt_1","event_type":"order.created","endpoint_id":"ep_1",
		"status":"pending","attempts":2,"runs":2,"last_status":503,"next_attempt_at":"2026-11-30T12:05:00Z","wait_reason":"circuit open",
		"created_at":"2026-11-30T10:00:00Z","redrive":{"by":"api-key:1a2b3c4d","reason":"fixed","at":"2026-11-30T11:00:00Z"},"timeline":[
 {"kind":"attempt","run":1,"number":1,"start":"2026-11-30T10:00:00Z","duration_ms":12.3,"status":404,"error_class":"http_4xx","outcome":"permanent"},
 {"kind":"redrive","run":2,"redrive":{"by":"api-key:1a2b3c4d","reason":"fixed","at":"2026-11-30T11:00:00Z"}},
 {"kind":"attempt","run":2,"number":1,"start":"2026-11-30T11:00:00Z","duration_ms":5,"status":503,"error_class":"http_5xx","outcome":"retryable","next_delay":"30s","delay_reason":"schedule"}]}`)
	e, out := testEnv(false)
	require.NoError(t, e.run(context.Background(), "deliveries", []string{"get", "dlv_1"}))
	assert.Regexp(t, `Attempts\s+2 over 2 runs \(1 redrive\)`, out.String())
	assert.Regexp(t, `Next attempt\s+2026-11-30T12:05:00Z \(in 5m\): circuit open`, out.String())
	assert.Regexp(t, `Redriven\s+2026-11-30T11:00:00Z by api-key:1a2b3c4d: fixed`, out.String())
	assert.Regexp(t, `(?m)^RUN\s+#\s+STARTED\s+DURATION\s+RESULT\s+OUTCOME\s+NEXT$`, out.String())
	assert.Regexp(t, `(?m)^1\s+1\s+2026-11-30T10:00:00Z\s+12ms\s+HTTP 404\s+permanent\s+-$`, out.String())
	assert.Regexp(t, `(?m)^2\s+-\s+2026-11-30T11:00:00Z\s+-\s+redriven by api-key:1a2b3c4d: fixed\s+redrive\s+-$`, out.String())
	assert.Regexp(t, `(?m)^2\s+1\s+2026-11-30T11:00:00Z\s+5ms\s+HTTP 503\s+retryable\s+30s \(schedule\)$`, out.String())
}

func TestDLQListSendsTheFilter(t *testing.T) {
	f := newFakeAPI(t)
	f.onSeq("GET /v1/dead-letters", 200,
		`{"data":[{"id":"dlv_1","event_id":"evt_1","event_type":"order.created","endpoint_id":"ep_1","reason":"exhausted","dead_at":"2026-11-30T09:00:00Z","last_status":503,"last_error":"http_5xx"}],"next_cursor":"c2"}`,
		`{"data":[{"id":"dlv_2","event_id":"evt_2","event_type":"order.created","endpoint_id":"ep_1","reason":"exhausted","dead_at":"2026-11-28T12:00:00Z","last_error":"timeout: no answer within 15s"}]}`)
	e, out := testEnv(false)
	err := e.run(context.Background(), "dlq", []string{"list", "--endpoint", "ep_1", "--event-type", "order.created",
		"--reason", "exhausted", "--since", "2d", "--until", "2026-11-30T11:00:00+01:00", "--limit", "1", "--all"})
	require.NoError(t, err)
	reqs := f.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "endpoint_id=ep_1&event_type=order.created&limit=1&reason=exhausted&since=2026-11-28T12%3A00%3A00Z&until=2026-11-30T10%3A00%3A00Z", reqs[0].Query)
	assert.Contains(t, reqs[1].Query, "cursor=c2")
	assert.Regexp(t, `(?m)^DELIVERY\s+EVENT TYPE\s+ENDPOINT\s+REASON\s+LAST RESULT\s+DEAD AT\s+AGE$`, out.String())
	assert.Regexp(t, `(?m)^dlv_1\s+order.created\s+ep_1\s+exhausted\s+HTTP 503\s+2026-11-30T09:00:00Z\s+3h$`, out.String())
	assert.Regexp(t, `(?m)^dlv_2\s+.*\s+timeout: no answer within 15s\s+.*\s+2d$`, out.String())
}

func TestDLQListRefusesABadSince(t *testing.T) {
	f := newFakeAPI(t)
	_, _, err := cli("dlq", "list", "--since", "yesterday")
	require.ErrorContains(t, err, `dlq list: --since "yesterday": want an RFC 3339 time or a duration ago`)
	assert.Empty(t, f.requests())
}

func TestDLQShowPrintsTimelineAndPayload(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/dead-letters/{id}", 200, `{"id":"dlv_1","event_id":"evt_1","event_type":"order.created","endpoint_id":"ep_1",
		"reason":"exhausted","dead_at":"2026-11-30T10:00:05Z","state":"waiting","attempts":2,"last_error":"timeout: no answer within 3s",
		"first_attempt_at":"2026-11-30T10:00:00Z","last_attempt_at":"2026-11-30T10:00:01Z","timeline":`+timelineJSON+`,"payload":{"order":42}}`)
	out, _, err := cli("dlq", "show", "dlv_1")
	require.NoError(t, err)
	assert.Equal(t, "/v1/dead-letters/dlv_1", f.only(t).Path)
	assert.Regexp(t, `Reason\s+exhausted`, out)
	assert.Regexp(t, `State\s+waiting`, out)
	assert.Regexp(t, `(?m)^1\s+2026-11-30T10:00:00Z\s+12ms\s+HTTP 500`, out)
	assert.NotContains(t, out, "boom", "only the last attempt's response is shown")
	assert.Contains(t, out, "Payload:\n{\n  \"order\": 42\n}\n")

	f.on("GET /v1/dead-letters/dlv_2", 200, `{"id":"dlv_2","reason":"failed","state":"waiting","attempts":1,"last_status":422,
		"timeline":[{"number":1,"start":"2026-11-30T10:00:00Z","duration_ms":5,"status":422,"error_class":"http_4xx","outcome":"permanent",
		"response":"{\"error\":\"unknown customer\"}\n"}],"payload":{}}`)
	out, _, err = cli("dlq", "show", "dlv_2")
	require.NoError(t, err)
	assert.Contains(t, out, "The receiver's response to attempt 1 (HTTP 422):\n{\"error\":\"unknown customer\"}\n\nPayload:")
}

func TestDLQSummary(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/dead-letters/summary", 200, `{"total":5,"groups":[{"endpoint_id":"ep_2","reason":"failed","count":1},
		{"endpoint_id":"ep_1","reason":"exhausted","count":4}],"oldest_age_seconds":7300}`)
	out, _, err := cli("dlq", "summary")
	require.NoError(t, err)
	f.only(t)
	assert.Regexp(t, `(?s)5 dead letters, the oldest 2h old.*ENDPOINT\s+REASON\s+COUNT\nep_1\s+exhausted\s+4\nep_2\s+failed\s+1\n`, out)
}

// Counts read as English: "1 dead letter", "1 delivery".
func TestCountsAreSingularForOne(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/dead-letters/summary", 200, `{"total":1,"groups":[{"endpoint_id":"ep_1","reason":"failed","count":1}],"oldest_age_seconds":3}`)
	f.on("POST /v1/events", 202, `{"event_id":"evt_1","deliveries":[{"id":"dlv_1","endpoint_id":"ep_1"}],"duplicate":false}`)
	out, _, err := cli("dlq", "summary")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "1 dead letter, the oldest 3s old.\n"), out)
	out, _, err = cli("send", "--type", "order.created", "--payload", "{}")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "Event evt_1 accepted: 1 delivery.\n"), out)
}

func TestDLQRedriveOne(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/dead-letters/{id}/redrive", 202, `{"delivery_id":"dlv_1","status":"redrive requested"}`)
	out, _, err := cli("dlq", "redrive", "dlv_1", "--reason", "receiver fixed")
	require.NoError(t, err)
	req := f.only(t)
	assert.Equal(t, "/v1/dead-letters/dlv_1/redrive", req.Path)
	assert.JSONEq(t, `{"reason":"receiver fixed"}`, req.Body)
	assert.Contains(t, out, "Redrive requested for dlv_1")

	_, _, err = cli("dlq", "redrive", "dlv_1", "--endpoint", "ep_1")
	require.ErrorContains(t, err, "--endpoint is for a bulk redrive")
}

// fakeJob answers a bulk redrive and then the job's progress, 0 -> 100.
func fakeJob(f *fakeAPI) {
	f.on("POST /v1/dead-letters/redrive", 202, `{"job_id":"redrive_1","matched":100,"rate":50}`)
	job := func(state string, done int) string {
		return `{"job_id":"redrive_1","state":"` + state + `","total":100,"completed":` + strconv.Itoa(done) +
			`,"failed":0,"started":"2026-11-30T12:00:00Z","closed":"2026-11-30T12:00:02Z","reason":"r"}`
	}
	f.onSeq("GET /v1/dead-letters/redrive/{job}", 200, job("running", 0), job("running", 50), job("running", 100), job("completed", 100))
}

func TestDLQBulkRedrivePrintsProgressLines(t *testing.T) {
	f := newFakeAPI(t)
	fakeJob(f)
	e, out := testEnv(false)
	err := e.run(context.Background(), "dlq", []string{"redrive", "--endpoint", "ep_1", "--since", "1h",
		"--reason-filter", "exhausted,failed", "--rate", "50", "--reason", "receiver fixed", "--yes"})
	require.NoError(t, err)
	reqs := f.requests()
	require.Len(t, reqs, 5)
	assert.Equal(t, "/v1/dead-letters/redrive", reqs[0].Path)
	assert.JSONEq(t, `{"endpoint_id":"ep_1","reasons":["exhausted","failed"],"since":"2026-11-30T11:00:00Z","rate":50,"reason":"receiver fixed"}`, reqs[0].Body)
	for _, r := range reqs[1:] {
		assert.Equal(t, "GET /v1/dead-letters/redrive/redrive_1", r.Method+" "+r.Path)
	}
	assert.Equal(t, "Redrive job redrive_1: 100 dead letters at 50/s.\n"+
		"redriven 0/100   0%\n"+
		"redriven 50/100  50%\n"+
		"redriven 100/100 100%\n"+
		"Redrive job redrive_1 completed in 2s: 100 redriven, 0 failed, of 100.\n", out.String())
}

func TestDLQBulkRedriveDrawsABarOnATerminal(t *testing.T) {
	f := newFakeAPI(t)
	fakeJob(f)
	e, out := testEnv(true)
	require.NoError(t, e.run(context.Background(), "dlq", []string{"redrive", "--endpoint", "ep_1", "--yes"}))
	s := out.String()
	assert.Contains(t, s, "\rredriven   0% |                              | (0/100)")
	assert.Contains(t, s, "\rredriven  50% |███████████████               | (50/100)")
	assert.Contains(t, s, "\rredriven 100% |██████████████████████████████| (100/100)")
	assert.NotContains(t, s, "\nredriven", "redrawn in place, not a line per poll")
	assert.True(t, strings.HasSuffix(s, "(100/100) \nRedrive job redrive_1 completed in 2s: 100 redriven, 0 failed, of 100.\n"), s)
}

func TestDLQBulkRedriveFailuresExitNonZero(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/dead-letters/redrive", 202, `{"job_id":"redrive_1","matched":3,"rate":10}`)
	f.on("GET /v1/dead-letters/redrive/{job}", 200, `{"job_id":"redrive_1","state":"completed","total":3,"completed":2,"failed":1}`)
	e, out := testEnv(false)
	err := e.run(context.Background(), "dlq", []string{"redrive", "--event-type", "order.created", "--yes"})
	require.EqualError(t, err, "dlq redrive: redrive job redrive_1: 1 of 3 redrives failed")
	assert.Contains(t, out.String(), "redriven 3/3 100%, 1 failed\n")
}

func TestDLQBulkRedriveRefusals(t *testing.T) {
	f := newFakeAPI(t)
	_, _, err := cli("dlq", "redrive", "--yes")
	require.ErrorContains(t, err, "refusing to redrive every dead letter")
	_, _, err = cli("dlq", "redrive", "--endpoint", "ep_1")
	require.ErrorContains(t, err, "add --yes")
	assert.Empty(t, f.requests())

	e, _ := testEnv(false)
	e.interactive, e.stdin = true, strings.NewReader("n\n")
	require.EqualError(t, e.run(context.Background(), "dlq", []string{"redrive", "--endpoint", "ep_1"}), "dlq redrive: cancelled")
	assert.Empty(t, f.requests())

	f.on("POST /v1/dead-letters/redrive", 200, `{"job_id":"redrive_2","matched":0,"rate":10}`)
	e, out := testEnv(false)
	e.interactive, e.stdin = true, strings.NewReader("y\n")
	require.NoError(t, e.run(context.Background(), "dlq", []string{"redrive", "--all-dead-letters"}))
	assert.JSONEq(t, `{"all":true,"rate":10}`, f.only(t).Body, "the API needs all: true for a redrive without a filter")
	assert.Equal(t, "No dead letters match: nothing to redrive.\n", out.String())
}

func TestDLQJobStopsWatchingOnCancel(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/dead-letters/redrive/{job}", 200, `{"job_id":"redrive_1","state":"running","total":10,"completed":1}`)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	e, _ := testEnv(false)
	err := e.run(ctx, "dlq", []string{"job", "redrive_1"})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "hookd dlq job redrive_1")
	assert.NotEmpty(t, f.requests())
}

func TestSendKeepsThePayloadBytes(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/events", 202, `{"event_id":"evt_1","deliveries":[],"duplicate":false}`)
	_, _, err := cli("send", "--type", "note.created", "--event-id", "evt_1", "--payload", `{"note":"<b>fish & chips</b>"}`)
	require.NoError(t, err)
	assert.Contains(t, f.only(t).Body, `"payload":{"note":"<b>fish & chips</b>"}`)
}
