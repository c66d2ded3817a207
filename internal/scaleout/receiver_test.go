package scaleout

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookd/hookd/signing"
)

// receiver is a deduplicating webhook receiver: it verifies each request's
// signature and counts requests by webhook-id.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	verifier *signing.Verifier
	seen     map[string]int
	total    int
	bad      atomic.Int64
	last     time.Time
	latency  time.Duration
}

func newReceiver(t *testing.T, latency time.Duration) *receiver {
	rc := &receiver{seen: map[string]int{}, latency: latency}
	rc.Server = httptest.NewServer(http.HandlerFunc(rc.handle))
	t.Cleanup(rc.Close)
	return rc
}

// setSecret sets the endpoint secret signatures must verify with.
func (rc *receiver) setSecret(t *testing.T, secret string) {
	v, err := signing.NewVerifier(secret)
	if err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	rc.verifier = v
	rc.mu.Unlock()
}

func (rc *receiver) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	rc.mu.Lock()
	v := rc.verifier
	rc.mu.Unlock()
	if err != nil || v == nil {
		rc.bad.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	id, _, err := v.Verify(body, r.Header)
	if err != nil {
		rc.bad.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	time.Sleep(rc.latency)
	rc.mu.Lock()
	rc.seen[id]++
	rc.total++
	rc.last = time.Now()
	rc.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// counts returns the distinct webhook-ids and the requests received.
func (rc *receiver) counts() (unique, total int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.seen), rc.total
}
