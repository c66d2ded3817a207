package activities

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/testkit"
)

// hostileReceiver is a loopback receiver on a raw TCP listener: it reads
// each request, then hands the connection to behave, which may answer
// anything or nothing. closed receives, per connection, when hookd closed
// its end (a read saw EOF) once behave has returned or while it holds.
type hostileReceiver struct {
	URL    string
	closed chan time.Time
}

// hold keeps a connection open, reading, until the client closes it.
func hold(conn net.Conn) { _, _ = io.Copy(io.Discard, conn) }

// every writes s to conn every interval until the write fails.
func every(conn net.Conn, interval time.Duration, s string) {
	for {
		if _, err := conn.Write([]byte(s)); err != nil {
			return
		}
		time.Sleep(interval)
	}
}

func newHostileReceiver(t *testing.T, behave func(conn net.Conn)) *hostileReceiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hr := &hostileReceiver{URL: "http://" + ln.Addr().String() + "/hook", closed: make(chan time.Time, 16)}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		open []net.Conn
	)
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, conn)
			mu.Unlock()
			wg.Go(func() {
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				behave(&eofConn{Conn: conn, closed: hr.closed})
			})
		}
	})
	return hr
}

// eofConn reports on closed when a read from the client sees its end.
type eofConn struct {
	net.Conn
	once   sync.Once
	closed chan time.Time
}

func (c *eofConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		c.report()
	}
	return n, err
}

func (c *eofConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err != nil {
		c.report()
	}
	return n, err
}

// report tells closed once, without blocking when no one listens.
func (c *eofConn) report() {
	c.once.Do(func() {
		select {
		case c.closed <- time.Now():
		default:
		}
	})
}

// hostileActivities are activities over one endpoint at url, sending with
// the client deliveries use (loopback allowed).
func hostileActivities(t *testing.T, url string) *Activities {
	t.Helper()
	eps := newFakeEndpoints(t, store.Endpoint{ID: "ep_hostile", URL: url, Enabled: true})
	a, err := New(Config{Endpoints: eps, Temporal: testkit.DownTemporal{}, HTTP: NewHTTPClient(Guard{AllowLoopback: true}), Version: "test",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Circuit: testPolicy})
	require.NoError(t, err)
	a.jitter = func() float64 { return 0 }
	return a
}

// attemptWithin makes one attempt with the given HTTP timeout and fails
// the test if it has not ended within limit (a wall-clock bound, so an
// attempt that escapes its timeout fails the test instead of hanging it).
func attemptWithin(t *testing.T, a *Activities, timeout, limit time.Duration) delivery.Attempt {
	t.Helper()
	req := request("ep_hostile", 2)
	req.Timeout = timeout
	done := make(chan delivery.Attempt, 1)
	go func() { done <- a.attempt(context.Background(), req, 1, nil) }()
	select {
	case at := <-done:
		return at
	case <-time.After(limit):
		t.Fatalf("the attempt still runs after %s with a %s timeout", limit, timeout)
		return delivery.Attempt{}
	}
}

// Whatever the receiver does, an attempt ends at its timeout: an upgrade
// it holds or drips into, interim answers without end, headers that never
// end, a body that drips.
func TestAttemptEndsAtItsTimeout(t *testing.T) {
	t.Parallel()
	const (
		timeout = time.Second
		margin  = 500 * time.Millisecond
	)
	const upgrade = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
	for _, c := range []struct {
		name    string
		behave  func(net.Conn)
		outcome delivery.Outcome
		class   string
		status  int
		prompt  bool // ends well before the timeout
	}{
		{"101 then hold", func(c net.Conn) { c.Write([]byte(upgrade)); hold(c) }, delivery.OutcomeRetryable, "http_1xx", 101, true},
		{"101 then drip", func(c net.Conn) { every(c, 50*time.Millisecond, upgrade+"x") }, delivery.OutcomeRetryable, "http_1xx", 101, true},
		{"101 with a body", func(c net.Conn) { c.Write([]byte(upgrade + strings.Repeat("x", 100<<10))); hold(c) }, delivery.OutcomeRetryable, "http_1xx", 101, true},
		{"102 without end", func(c net.Conn) { every(c, 50*time.Millisecond, "HTTP/1.1 102 Processing\r\n\r\n") }, delivery.OutcomeRetryable, "timeout", 0, false},
		{"100 without end", func(c net.Conn) { every(c, 50*time.Millisecond, "HTTP/1.1 100 Continue\r\n\r\n") }, delivery.OutcomeRetryable, "timeout", 0, false},
		{"headers never end", func(c net.Conn) {
			c.Write([]byte("HTTP/1.1 200 OK\r\n"))
			every(c, 50*time.Millisecond, "X-Slow: x\r\n")
		}, delivery.OutcomeRetryable, "timeout", 0, false},
		{"silence", hold, delivery.OutcomeRetryable, "timeout", 0, false},
		{"body drips", func(c net.Conn) {
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n"))
			every(c, 50*time.Millisecond, "x")
		}, delivery.OutcomeSuccess, "", 200, false}, // the answer counts; its body is cut off
		{"chunks drip", func(c net.Conn) {
			c.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n"))
			every(c, 50*time.Millisecond, "1\r\nx\r\n")
		}, delivery.OutcomeRetryable, "http_5xx", 503, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rc := newHostileReceiver(t, c.behave)
			a := hostileActivities(t, rc.URL)
			start := time.Now()
			at := attemptWithin(t, a, timeout, timeout+5*time.Second)
			took := time.Since(start)
			assert.Equal(t, c.outcome, at.Outcome)
			assert.Equal(t, c.class, at.ErrorClass)
			assert.Equal(t, c.status, at.Status)
			assert.Less(t, took, timeout+margin, "the attempt outlived its timeout")
			assert.LessOrEqual(t, at.Duration, took)
			if c.prompt {
				assert.Less(t, took, timeout/2, "a 101 ends the attempt at once")
			}
			// hookd closed its end: the receiver sees it within the margin.
			select {
			case <-rc.closed:
			case <-time.After(margin):
				t.Errorf("the connection is still open %s after the attempt", margin)
			}
		})
	}
}

// A response header beyond 64 KiB fails the attempt, retryably, with its
// own class, instead of costing up to net/http's default of 10 MB; one
// just under the cap is read.
func TestHugeResponseHeaders(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		size    int
		outcome delivery.Outcome
		class   string
	}{
		{"over the cap", 100 << 10, delivery.OutcomeRetryable, "response_headers_too_large"},
		{"far over the cap", 4 << 20, delivery.OutcomeRetryable, "response_headers_too_large"},
		{"under the cap", 60 << 10, delivery.OutcomeSuccess, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rc := newHostileReceiver(t, func(conn net.Conn) {
				conn.Write([]byte("HTTP/1.1 200 OK\r\nX-Huge: " + strings.Repeat("h", c.size) + "\r\nContent-Length: 0\r\n\r\n"))
				hold(conn)
			})
			at := attemptWithin(t, hostileActivities(t, rc.URL), 5*time.Second, 10*time.Second)
			assert.Equal(t, c.outcome, at.Outcome)
			assert.Equal(t, c.class, at.ErrorClass)
			if c.class != "" {
				assert.Equal(t, "response headers larger than 64 KiB", at.Error)
			}
		})
	}
}
