package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// upgrader is a receiver that answers every request with 101 Switching
// Protocols and holds the socket until hookd closes it, recording how
// long hookd kept each one.
type upgrader struct {
	mu   sync.Mutex
	held []time.Duration // from the 101 to hookd's close, per connection
	hits int
}

func newUpgrader(t *testing.T) (*upgrader, string) {
	u := &upgrader{}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		mu.Lock()
		conns = append(conns, conn)
		mu.Unlock()
		u.mu.Lock()
		u.hits++
		u.mu.Unlock()
		_, _ = conn.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"))
		sent := time.Now()
		wg.Go(func() {
			// Held: never answers, never closes; hookd's close ends it.
			_, _ = io.Copy(io.Discard, buf)
			u.mu.Lock()
			u.held = append(u.held, time.Since(sent))
			u.mu.Unlock()
		})
	}))
	t.Cleanup(func() { // before serve's Close: cleanups run last first
		srv.CloseClientConnections()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return u, srv.URL
}

func (u *upgrader) seen() (hits int, held []time.Duration) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.hits, append([]time.Duration(nil), u.held...)
}

// A receiver that answers 101 and holds the socket no longer holds the
// attempt: each attempt ends within the endpoint's 2 s timeout (at once,
// in fact), is recorded as http_1xx, closes the connection, and the
// delivery follows its schedule to the end; another endpoint's delivery
// in the same hookd is delivered promptly meanwhile. Before the fix the
// first attempt read the upgraded connection until the receiver let go.
func TestUpgradeHoldingReceiver(t *testing.T) {
	t.Parallel()
	const (
		timeout = 2 * time.Second
		margin  = time.Second
	)
	api := newAPI(t)
	u, url := newUpgrader(t)
	api.createEndpoint(map[string]any{"url": url, "event_types": []string{"hostile101.upgrade"},
		"retry_schedule": []string{"1s", "2s"}, "timeout": timeout.String()})
	rc := newReceiver(t, nil)
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"hostile101.other"}})

	// Few enough failures (3 each) that the endpoint's circuit (5 in
	// these tests) stays closed, so the timeline is the schedule's.
	const hostile = 1
	var ids []string
	for i := range hostile {
		a := api.send(fmt.Sprintf(`{"type":"hostile101.upgrade","payload":{"n":%d}}`, i))
		require.Len(t, a.Deliveries, 1)
		ids = append(ids, a.Deliveries[0].ID)
	}
	require.Eventually(t, func() bool { hits, _ := u.seen(); return hits >= hostile }, 10*time.Second, 10*time.Millisecond,
		"the hostile receiver saw the first attempts")

	// Meanwhile: another endpoint's delivery goes through at once.
	sent := time.Now()
	other := api.send(`{"type":"hostile101.other","payload":{}}`)
	d := api.waitDelivery(other.Deliveries[0].ID, 5*time.Second)
	took := time.Since(sent)
	require.EqualValues(t, "delivered", d.Status)
	require.Less(t, took, 2*time.Second, "the other endpoint's delivery took %s", took)
	var hostileState deliveryState
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/deliveries/"+ids[0], nil, &hostileState))
	require.EqualValues(t, "pending", hostileState.Status, "the hostile delivery was still under way")
	t.Logf("other endpoint delivered %s after posting, during the hostile deliveries", took.Round(time.Millisecond))

	for _, id := range ids {
		var state deliveryState
		require.Eventually(t, func() bool {
			state = deliveryState{}
			return api.do("GET", "/v1/deliveries/"+id, nil, &state) == http.StatusOK && state.Status != "pending"
		}, 30*time.Second, 50*time.Millisecond, "delivery %s still %q", id, state.Status)
		require.EqualValues(t, "exhausted", state.Status, id)
		require.Len(t, state.Timeline, 3, id)
		for _, at := range state.Timeline {
			require.NotEqualValues(t, "redrive", at.Kind)
			require.Equal(t, 101, at.Status, "%s attempt %d", id, at.Number)
			require.Equal(t, "http_1xx", at.ErrorClass, "%s attempt %d", id, at.Number)
			require.EqualValues(t, "retryable", at.Outcome, "%s attempt %d", id, at.Number)
			dur := attemptEnd(at).Sub(at.Start)
			require.Less(t, dur, timeout+margin, "%s attempt %d lasted %s", id, at.Number, dur)
			t.Logf("%s attempt %d: %s in %s", id, at.Number, at.ErrorClass, dur.Round(time.Microsecond))
		}
	}
	hits, held := u.seen()
	require.Equal(t, 3*hostile, hits, "one request per attempt")
	require.Eventually(t, func() bool { _, held = u.seen(); return len(held) == hits }, 5*time.Second, 10*time.Millisecond,
		"hookd closed every upgraded connection")
	for _, h := range held {
		require.Less(t, h, timeout+margin, "hookd held an upgraded connection for %s", h)
	}
	t.Logf("hookd held the upgraded connections for %v", held)
}
