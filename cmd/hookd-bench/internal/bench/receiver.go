package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// headerEventID names the event a delivery carries; hookd sets it, and the
// naive baseline sets it too so one receiver serves both.
const headerEventID = "hookd-event-id"

// receiver is a loopback webhook receiver that records when each event
// first arrived. While down it answers 503 to everything. One in a
// process of its own (startReceiverProcess) has no srv and is never down.
type receiver struct {
	URL  string
	srv  *http.Server
	stop func() // stops the receiver's process
	down atomic.Bool
	fail atomic.Int64 // 503s answered
	ok   atomic.Int64 // 200s answered, duplicates included

	mu    sync.Mutex
	first map[string]time.Time // event ID -> first 2xx
	last  time.Time
	// missing is what the running wait still waits for. Counting down as
	// events arrive keeps the wait's polling cheap at any count, where
	// rescanning every expected ID every 20 ms would take CPU from the
	// process being measured.
	missing map[string]struct{}
}

func startReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("receiver: %w", err)
	}
	rc := &receiver{URL: "http://" + ln.Addr().String() + "/hook", first: map[string]time.Time{}}
	rc.srv = &http.Server{Handler: rc, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = rc.srv.Serve(ln) }()
	return rc, nil
}

// ServeHTTP records the event and answers 200, or 503 while down.
func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if rc.down.Load() {
		rc.fail.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	rc.record(r.Header.Get(headerEventID), time.Now())
	w.WriteHeader(http.StatusOK)
}

// record counts a request for event id answered 200 at now.
func (rc *receiver) record(id string, now time.Time) {
	rc.mu.Lock()
	if _, seen := rc.first[id]; !seen {
		rc.first[id] = now
		rc.last = now
		delete(rc.missing, id)
	}
	rc.mu.Unlock()
	rc.ok.Add(1)
}

// requests is how many requests the receiver has answered 200.
func (rc *receiver) requests() int { return int(rc.ok.Load()) }

// received returns how many of ids arrived and when each did.
func (rc *receiver) received(ids []string) (int, []time.Time) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	at := make([]time.Time, len(ids))
	n := 0
	for i, id := range ids {
		if t, ok := rc.first[id]; ok {
			at[i] = t
			n++
		}
	}
	return n, at
}

// wait polls until every one of ids arrived or ctx ends; it returns the
// arrival times (zero for missing ones). One wait runs at a time.
func (rc *receiver) wait(ctx context.Context, ids []string) ([]time.Time, error) {
	rc.mu.Lock()
	rc.missing = make(map[string]struct{}, len(ids))
	for _, id := range ids {
		if _, ok := rc.first[id]; !ok {
			rc.missing[id] = struct{}{}
		}
	}
	rc.mu.Unlock()
	defer func() {
		rc.mu.Lock()
		rc.missing = nil
		rc.mu.Unlock()
	}()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if rc.left() == 0 {
			_, at := rc.received(ids)
			return at, nil
		}
		select {
		case <-ctx.Done():
			n, at := rc.received(ids)
			return at, fmt.Errorf("%d of %d deliveries arrived: %w", n, len(ids), ctx.Err())
		case <-tick.C:
		}
	}
}

// left is how many events the running wait still waits for.
func (rc *receiver) left() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.missing)
}

func (rc *receiver) close() {
	if rc.stop != nil {
		rc.stop()
		return
	}
	_ = rc.srv.Close()
}
