package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
)

type deadLetter = wire.DeadLetter

// waitDeadLetter polls until the delivery's dead letter is waiting.
func (c *apiClient) waitDeadLetter(id string) deadLetter {
	c.t.Helper()
	var dl deadLetter
	require.Eventually(c.t, func() bool {
		dl = deadLetter{}
		return c.do("GET", "/v1/dead-letters/"+id, nil, &dl) == http.StatusOK && dl.State == "waiting" && dl.Attempts > 0
	}, 20*time.Second, 100*time.Millisecond)
	return dl
}

// waitCounted polls until the dead-letter summary, a visibility count as
// a bulk redrive's match is, counts n waiting for endpointID: a dead
// letter reads as waiting (waitDeadLetter) a little before visibility
// lists it.
func (c *apiClient) waitCounted(endpointID string, n int, within time.Duration) {
	c.t.Helper()
	require.Eventually(c.t, func() bool {
		var sum wire.DeadLetterSummary
		c.do("GET", "/v1/dead-letters/summary", nil, &sum)
		for _, g := range sum.Groups {
			if g.EndpointID == endpointID {
				return g.Count == int64(n)
			}
		}
		return false
	}, within, 100*time.Millisecond, "%d dead letters of %s counted", n, endpointID)
}

// switchable answers 500 (or another failure) until repaired, then 200,
// and counts requests per webhook-id.
type switchable struct {
	failStatus atomic.Int32
	mu         sync.Mutex
	seen       map[string]int
}

func newSwitchable(status int) *switchable {
	s := &switchable{seen: map[string]int{}}
	s.failStatus.Store(int32(status))
	return s
}

func (s *switchable) respond(w http.ResponseWriter, id string) {
	if st := s.failStatus.Load(); st != 0 {
		w.WriteHeader(int(st))
		return
	}
	s.mu.Lock()
	s.seen[id]++
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (s *switchable) delivered() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.seen {
		out[k] = v
	}
	return out
}

func (s *switchable) server(t *testing.T) *httptest.Server {
	return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.respond(w, r.Header.Get("webhook-id"))
	}))
}

// An always-500 endpoint exhausts exactly 1 + len(schedule) attempts and
// is dead-lettered with its whole timeline; after a repair, a redrive
// delivers it with the same webhook-id and a fresh budget.
func TestExhaustedDeadLetterAndRedrive(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	sw := newSwitchable(http.StatusInternalServerError)
	rc := sw.server(t)
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"dlq.exhaust"}, "retry_schedule": []string{"1s", "1s"}})
	a := api.send(`{"event_id":"dlq-ex-1","type":"dlq.exhaust","payload":{"order":7}}`)
	id := a.Deliveries[0].ID

	d := api.waitDelivery(id, 20*time.Second)
	require.EqualValues(t, "exhausted", d.Status)
	require.Equal(t, 3, d.Attempts)

	dl := api.waitDeadLetter(id)
	require.EqualValues(t, "exhausted", dl.Reason)
	require.Equal(t, "dlq-ex-1", dl.EventID)
	require.Equal(t, ep.ID, dl.EndpointID)
	require.Equal(t, 3, dl.Attempts)
	require.Len(t, dl.Timeline, 3)
	require.Equal(t, 500, dl.LastStatus)
	require.JSONEq(t, `{"order":7}`, string(dl.Payload))

	var list wire.DeadLetterPage
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/dead-letters?endpoint_id="+ep.ID+"&reason=exhausted", nil, &list))
	require.Len(t, list.Data, 1)
	require.Equal(t, id, list.Data[0].ID)
	require.Equal(t, 500, list.Data[0].LastStatus, "the list says how it died")
	require.Equal(t, "http_5xx", list.Data[0].LastError)

	sw.failStatus.Store(0)
	require.Equal(t, http.StatusAccepted, api.do("POST", "/v1/dead-letters/"+id+"/redrive", map[string]string{"reason": "receiver fixed"}, nil))
	require.Eventually(t, func() bool {
		d = deliveryState{}
		return api.do("GET", "/v1/deliveries/"+id, nil, &d) == http.StatusOK && d.Status == "delivered"
	}, 20*time.Second, 100*time.Millisecond)
	require.Equal(t, map[string]int{id: 1}, sw.delivered())

	// One story: both runs' attempts, the redrive between them, the first
	// run's creation.
	require.Equal(t, 2, d.Runs)
	require.Equal(t, 4, d.Attempts)
	require.Len(t, d.Timeline, 5)
	for i, want := range []struct {
		kind    string
		run, n  int
		outcome string
	}{{"attempt", 1, 1, "retryable"}, {"attempt", 1, 2, "retryable"}, {"attempt", 1, 3, "retryable"}, {"redrive", 2, 0, ""}, {"attempt", 2, 1, "success"}} {
		e := d.Timeline[i]
		require.EqualValues(t, want.kind, e.Kind, "entry %d", i)
		require.Equal(t, want.run, e.Run, "entry %d", i)
		require.Equal(t, want.n, e.Number, "entry %d", i)
		require.EqualValues(t, want.outcome, e.Outcome, "entry %d", i)
	}
	rd := d.Timeline[3].Redrive
	require.NotNil(t, rd)
	require.EqualValues(t, "receiver fixed", rd.Reason)
	require.Contains(t, rd.By, "api-key:")
	require.True(t, rd.At.After(d.Timeline[2].Start) && rd.At.Before(d.Timeline[4].Start), "the redrive sits between the runs")
	require.False(t, d.CreatedAt.After(d.Timeline[0].Start), "created when the first run started")
	require.Equal(t, 200, d.LastStatus)
	require.Eventually(t, func() bool {
		var dl deadLetter
		return api.do("GET", "/v1/dead-letters/"+id, nil, &dl) == http.StatusOK && dl.State == "closed"
	}, 10*time.Second, 100*time.Millisecond)
}

// A 404 dead-letters with reason failed; the redrive signal sent through
// the Temporal client, as `temporal workflow signal --name redrive` does,
// redrives it.
func TestFailedDeadLetterRedrivenByTemporalSignal(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	sw := newSwitchable(http.StatusNotFound)
	rc := sw.server(t)
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"dlq.gone"}, "retry_schedule": []string{"1s"}})
	a := api.send(`{"type":"dlq.gone","payload":{}}`)
	id := a.Deliveries[0].ID
	dl := api.waitDeadLetter(id)
	require.EqualValues(t, "failed", dl.Reason)
	require.Equal(t, 1, dl.Attempts)

	sw.failStatus.Store(0)
	// No input at all, exactly as the temporal CLI sends it.
	require.NoError(t, shared.Client.SignalWorkflow(context.Background(), delivery.DeadLetterID(id), "", delivery.SignalRedrive, nil))
	require.Eventually(t, func() bool { return sw.delivered()[id] == 1 }, 20*time.Second, 100*time.Millisecond)
}

// 200 dead letters redriven in bulk at 50/s are each delivered exactly once.
// Not parallel: its load would skew the timing assertions of other tests.
func TestBulkRedrive(t *testing.T) {
	const n = 200
	api := newAPI(t)
	sw := newSwitchable(http.StatusUnprocessableEntity)
	rc := sw.server(t)
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"dlq.bulk"}, "retry_schedule": []string{"1s"}})
	var batch []map[string]any
	for i := range n {
		batch = append(batch, map[string]any{"type": "dlq.bulk", "payload": map[string]int{"i": i}})
	}
	var res wire.EventBatchResults
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/events/batch", map[string]any{"events": batch[:100]}, &res))
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/events/batch", map[string]any{"events": batch[100:]}, &res))
	for _, r := range res.Results {
		require.Equal(t, http.StatusAccepted, r.Status)
	}
	api.waitCounted(ep.ID, n, 60*time.Second)

	sw.failStatus.Store(0)
	var job wire.RedriveStarted
	start := time.Now()
	require.Equal(t, http.StatusAccepted, api.do("POST", "/v1/dead-letters/redrive", map[string]any{"endpoint_id": ep.ID, "rate": 50}, &job))
	require.EqualValues(t, n, job.Matched)
	require.Eventually(t, func() bool { return len(sw.delivered()) == n }, 90*time.Second, 250*time.Millisecond)
	took := time.Since(start)
	for id, count := range sw.delivered() {
		require.Equal(t, 1, count, id)
	}
	var progress wire.RedriveJob
	require.Eventually(t, func() bool {
		return api.do("GET", "/v1/dead-letters/redrive/"+job.JobID, nil, &progress) == http.StatusOK && progress.State == "completed"
	}, 30*time.Second, 250*time.Millisecond)
	require.EqualValues(t, n, progress.Completed)
	t.Logf("bulk redrive: %d dead letters delivered in %s (%.0f/s at rate 50)", n, took.Round(time.Millisecond), float64(n)/took.Seconds())
}
