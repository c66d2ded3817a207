package bench

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestReceiverProcessReports serves a receiver as its process does and
// follows what it prints: every request counts, each event's first
// arrival is recorded with the serving side's stamp.
func TestReceiverProcessReports(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- ServeReceiver(ctx, pw)
		_ = pw.Close()
	}()
	rc := &receiver{first: map[string]time.Time{}}
	if err := rc.follow(pr); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	for _, id := range []string{"evt_a", "evt_b", "evt_a"} {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, rc.URL, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(headerEventID, id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d, want 200", id, resp.StatusCode)
		}
	}
	wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	at, err := rc.wait(wctx, []string{"evt_a", "evt_b"})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range at {
		if a.Before(before) || a.After(time.Now()) {
			t.Errorf("arrival %d stamped %v, outside the requests' span from %v", i, a, before)
		}
	}
	if !at[0].Before(at[1]) {
		t.Errorf("evt_a's first arrival %v is not before evt_b's %v", at[0], at[1])
	}
	for deadline := time.Now().Add(5 * time.Second); rc.requests() < 3 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := rc.requests(); n != 3 {
		t.Errorf("requests = %d, want 3 (a duplicate counts)", n)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
}
