package e2e

import (
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// A bulk redrive's rate is kept: at 2 a second, 6 dead letters reach the
// receiver over at least 2.5 s, each once, and the job's progress counts
// every one of them.
func TestBulkRedriveKeepsItsRate(t *testing.T) {
	const n = 6
	api := newAPI(t)
	sw := newSwitchable(http.StatusUnprocessableEntity)
	var (
		arrivals = make(chan time.Time, 100)
		inner    = sw.server(t)
	)
	rc := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sw.failStatus.Load() == 0 {
			arrivals <- time.Now()
		}
		req, err := http.NewRequest(r.Method, inner.URL, r.Body)
		require.NoError(t, err)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
	}))
	eventType := "dlq.rate." + uniq()
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{eventType}, "retry_schedule": []string{"1s"}})
	var ids []string
	for range n {
		a := api.send(`{"type":"` + eventType + `","payload":{"x":1}}`)
		ids = append(ids, a.Deliveries[0].ID)
	}
	for _, id := range ids {
		api.waitDeadLetter(id)
	}
	api.waitCounted(ep.ID, n, 20*time.Second)

	sw.failStatus.Store(0)
	var job wire.RedriveStarted
	require.Equal(t, http.StatusAccepted, api.do("POST", "/v1/dead-letters/redrive", map[string]any{"endpoint_id": ep.ID, "rate": 2}, &job))
	require.EqualValues(t, n, job.Matched)
	var got []time.Time
	deadline := time.After(30 * time.Second)
	for len(got) < n {
		select {
		case at := <-arrivals:
			got = append(got, at)
		case <-deadline:
			t.Fatalf("%d of %d redriven deliveries arrived", len(got), n)
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Before(got[j]) })
	span := got[n-1].Sub(got[0])
	t.Logf("rate 2/s: %d redriven deliveries arrived over %s (%.2f/s)", n, span.Round(time.Millisecond), float64(n-1)/span.Seconds())
	require.GreaterOrEqual(t, span, 2300*time.Millisecond, "6 signals at 2/s are 2.5 s apart end to end")
	for id, count := range sw.delivered() {
		require.Equal(t, 1, count, id)
	}

	var progress wire.RedriveJob
	require.Eventually(t, func() bool {
		return api.do("GET", "/v1/dead-letters/redrive/"+job.JobID, nil, &progress) == http.StatusOK && progress.State == "completed"
	}, 30*time.Second, 250*time.Millisecond)
	require.EqualValues(t, n, progress.Total)
	require.EqualValues(t, n, progress.Completed)
}
