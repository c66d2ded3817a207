package activities

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
)

func TestClassifyStatus(t *testing.T) {
	for _, c := range []struct {
		code    int
		outcome delivery.Outcome
		class   string
	}{
		{100, delivery.OutcomeRetryable, "http_1xx"},
		{101, delivery.OutcomeRetryable, "http_1xx"},
		{200, delivery.OutcomeSuccess, ""},
		{201, delivery.OutcomeSuccess, ""},
		{204, delivery.OutcomeSuccess, ""},
		{299, delivery.OutcomeSuccess, ""},
		{301, delivery.OutcomeRetryable, "http_3xx"},
		{302, delivery.OutcomeRetryable, "http_3xx"},
		{304, delivery.OutcomeRetryable, "http_3xx"},
		{307, delivery.OutcomeRetryable, "http_3xx"},
		{400, delivery.OutcomePermanent, "http_4xx"},
		{401, delivery.OutcomePermanent, "http_4xx"},
		{404, delivery.OutcomePermanent, "http_4xx"},
		{408, delivery.OutcomeRetryable, "http_408"},
		{410, delivery.OutcomePermanent, "http_4xx"},
		{413, delivery.OutcomePermanent, "http_4xx"},
		{422, delivery.OutcomePermanent, "http_4xx"},
		{429, delivery.OutcomeRetryable, "http_429"},
		{499, delivery.OutcomePermanent, "http_4xx"},
		{500, delivery.OutcomeRetryable, "http_5xx"},
		{502, delivery.OutcomeRetryable, "http_5xx"},
		{503, delivery.OutcomeRetryable, "http_5xx"},
		{504, delivery.OutcomeRetryable, "http_5xx"},
		{599, delivery.OutcomeRetryable, "http_5xx"},
	} {
		outcome, class := classifyStatus(c.code)
		assert.Equal(t, c.outcome, outcome, "status %d", c.code)
		assert.Equal(t, c.class, class, "status %d", c.code)
	}
}

// secretURL stands for an endpoint URL, which must never reach an
// attempt's error message.
const secretURL = "https://hooks.example.com/t/SECRET-TOKEN?key=abc"

// asClientError wraps err the way http.Client.Do and the dialer do.
func asClientError(op string, err error) error {
	return &url.Error{Op: "Post", URL: secretURL, Err: &net.OpError{Op: op, Net: "tcp", Err: err}}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestClassifyError(t *testing.T) {
	for _, c := range []struct {
		name    string
		err     error
		outcome delivery.Outcome
		class   string
	}{
		{"context deadline", &url.Error{Op: "Post", URL: secretURL, Err: context.DeadlineExceeded}, delivery.OutcomeRetryable, "timeout"},
		{"net timeout", asClientError("read", timeoutErr{}), delivery.OutcomeRetryable, "timeout"},
		{"connection refused", asClientError("dial", os.NewSyscallError("connect", syscall.ECONNREFUSED)), delivery.OutcomeRetryable, "connection_refused"},
		{"connection reset", asClientError("read", os.NewSyscallError("read", syscall.ECONNRESET)), delivery.OutcomeRetryable, "connection_reset"},
		{"broken pipe", asClientError("write", os.NewSyscallError("write", syscall.EPIPE)), delivery.OutcomeRetryable, "connection_reset"},
		{"dns", asClientError("dial", &net.DNSError{Err: "no such host", Name: "hooks.example.com", IsNotFound: true}), delivery.OutcomeRetryable, "dns"},
		{"tls unknown authority", &url.Error{Op: "Post", URL: secretURL, Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, delivery.OutcomeRetryable, "tls"},
		{"tls hostname", &url.Error{Op: "Post", URL: secretURL, Err: x509.HostnameError{Certificate: &x509.Certificate{}, Host: "hooks.example.com"}}, delivery.OutcomeRetryable, "tls"},
		{"tls record header", &url.Error{Op: "Post", URL: secretURL, Err: tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}}, delivery.OutcomeRetryable, "tls"},
		{"closed early", &url.Error{Op: "Post", URL: secretURL, Err: io.EOF}, delivery.OutcomeRetryable, "connection_closed"},
		{"refused by guard", asClientError("dial", fmt.Errorf("%w: private address 10.0.0.1", ErrRefused)), delivery.OutcomePermanent, "refused"},
		{"endpoint deleted", errEndpointDeleted, delivery.OutcomePermanent, "refused"},
		{"store down", fmt.Errorf("%w: load endpoint ep_1: %w", errInternal, errors.New("database is locked")), delivery.OutcomeRetryable, "internal"},
		{"other", &url.Error{Op: "Post", URL: secretURL, Err: errors.New("something odd")}, delivery.OutcomeRetryable, "network"},
	} {
		outcome, class, msg := classifyError(c.err)
		assert.Equal(t, c.outcome, outcome, c.name)
		assert.Equal(t, c.class, class, c.name)
		assert.NotEmpty(t, msg, c.name)
		assert.NotContains(t, msg, "SECRET-TOKEN", c.name)
		assert.NotContains(t, msg, "hooks.example.com/t", c.name)
	}
	_, _, msg := classifyError(asClientError("dial", fmt.Errorf("%w: private address 10.0.0.1", ErrRefused)))
	assert.Equal(t, "destination refused: private address 10.0.0.1", msg)
}

// A DNS failure's message names the class and the host, never the
// resolver: net's DNSError carries the resolver in Server and, for some
// failures, inside Err.
func TestDNSMessageHidesTheResolver(t *testing.T) {
	for _, c := range []struct {
		err  *net.DNSError
		want string
	}{
		{&net.DNSError{Err: "no such host", Name: "hooks.example.com", Server: "127.0.0.53:53", IsNotFound: true}, "DNS lookup of hooks.example.com failed: no such host"},
		{&net.DNSError{Err: "read udp 127.0.0.1:41234->127.0.0.53:53: i/o timeout", Name: "hooks.example.com", Server: "127.0.0.53:53", IsTimeout: true}, "DNS lookup of hooks.example.com timed out"},
		{&net.DNSError{Err: "dial udp 127.0.0.53:53: connect: network is unreachable", Name: "hooks.example.com", Server: "127.0.0.53:53"}, "DNS lookup of hooks.example.com failed"},
		{&net.DNSError{Err: "server misbehaving", Name: "hooks.example.com", Server: "[fd00::53]:53", IsTemporary: true}, "DNS lookup of hooks.example.com failed: server misbehaving"},
	} {
		require.Contains(t, c.err.Error(), c.err.Server, "the raw error names the resolver")
		outcome, class, msg := classifyError(asClientError("dial", c.err))
		assert.Equal(t, delivery.OutcomeRetryable, outcome, c.err.Err)
		assert.Equal(t, "dns", class, c.err.Err)
		assert.Equal(t, c.want, msg)
		assert.NotContains(t, msg, "53", c.err.Err)
		assert.NotContains(t, msg, "SECRET-TOKEN", c.err.Err)
	}
}

// Real transport failures from the client deliveries use, classified.
func TestClassifyRealErrors(t *testing.T) {
	client := NewHTTPClient(Guard{AllowLoopback: true})
	post := func(ctx context.Context, u string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
		require.NoError(t, err)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		ln.Close()
		_, class, _ := classifyError(post(context.Background(), "http://"+addr))
		assert.Equal(t, "connection_refused", class)
	})
	t.Run("timeout", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, class, _ := classifyError(post(ctx, srv.URL))
		assert.Equal(t, "timeout", class)
	})
	t.Run("tls", func(t *testing.T) {
		srv := newTLSServer(t)
		_, class, msg := classifyError(post(context.Background(), srv.URL))
		assert.Equal(t, "tls", class)
		assert.Equal(t, "TLS handshake failed: the receiver's certificate is signed by an authority hookd does not trust", msg)
	})
	t.Run("dropped", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		})
		outcome, class, _ := classifyError(post(context.Background(), srv.URL))
		assert.Equal(t, delivery.OutcomeRetryable, outcome)
		assert.Contains(t, []string{"connection_closed", "connection_reset"}, class)
	})
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"0", time.Second, true}, // zero would mean "use the retry policy",
		{"2", 2 * time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"86400", 24 * time.Hour, true},
		{"86401", delivery.MaxRetryAfter, true},
		{"999999999999", delivery.MaxRetryAfter, true},
		{"99999999999999999999", delivery.MaxRetryAfter, true}, // beyond int64: still a (huge) delay
		{"+5", 0, false},                                       // delay-seconds is 1*DIGIT
		{"5 5", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(48 * time.Hour).Format(http.TimeFormat), delivery.MaxRetryAfter, true},
		{now.Add(time.Hour).Format(time.RFC850), time.Hour, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, false},
		{now.Format(http.TimeFormat), 0, false},
		{"", 0, false},
		{"-5", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"Mon, 32 Nov 2026 12:00:00 GMT", 0, false},
	} {
		got, ok := parseRetryAfter(c.value, now)
		assert.Equal(t, c.ok, ok, "%q", c.value)
		assert.Equal(t, c.want, got, "%q", c.value)
	}
}

// A valid Retry-After replaces the schedule; otherwise the scheduled delay
// gets at most ±20% jitter.
func TestNextDelay(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, j := range []float64{-1, -0.5, 0, 0.999} {
		a := &Activities{jitter: func() float64 { return j }}
		d, reason := a.nextDelay(10*time.Second, "", now)
		assert.Equal(t, "schedule", reason)
		assert.Equal(t, 10*time.Second+time.Duration(float64(10*time.Second)*0.2*j), d)
		assert.InDelta(t, 10, d.Seconds(), 2)

		d, reason = a.nextDelay(10*time.Second, "3", now)
		assert.Equal(t, "retry-after", reason)
		assert.Equal(t, 3*time.Second, d)

		d, reason = a.nextDelay(10*time.Second, "yesterday", now)
		assert.Equal(t, "schedule", reason, "an invalid Retry-After is ignored")
		assert.InDelta(t, 10, d.Seconds(), 2)
	}
}
