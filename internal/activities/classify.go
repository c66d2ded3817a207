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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hookd/hookd/internal/delivery"
)

// classifyStatus maps an HTTP status to an outcome: 2xx succeeds; 408, 429
// and 5xx are retryable; other 4xx are permanent; 1xx and 3xx (redirects are
// never followed) are retryable.
func classifyStatus(code int) (delivery.Outcome, string) {
	switch {
	case code >= 200 && code < 300:
		return delivery.OutcomeSuccess, ""
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests:
		return delivery.OutcomeRetryable, "http_" + strconv.Itoa(code)
	case code >= 400 && code < 500:
		return delivery.OutcomePermanent, "http_4xx"
	case code >= 500:
		return delivery.OutcomeRetryable, "http_5xx"
	default:
		return delivery.OutcomeRetryable, fmt.Sprintf("http_%dxx", code/100)
	}
}

// ErrRefused marks a destination the SSRF guard refused; it is permanent.
var ErrRefused = errors.New("destination refused")

// classifyError names a transport failure and says whether it is
// permanent. The message never contains the URL.
func classifyError(err error) (delivery.Outcome, string, string) {
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		unkAuth x509.UnknownAuthorityError
		hostErr x509.HostnameError
		recErr  tls.RecordHeaderError
		netErr  net.Error
	)
	if outcome, class, msg, ok := classedFailure(err); ok {
		return outcome, class, msg
	}
	switch {
	case errors.Is(err, ErrRefused):
		return delivery.OutcomePermanent, "refused", refusedMessage(err)
	case errors.Is(err, errInternal):
		return delivery.OutcomeRetryable, delivery.ClassInternal, errInternal.Error()
	case headersTooLarge(err):
		return delivery.OutcomeRetryable, "response_headers_too_large", fmt.Sprintf("response headers larger than %d KiB", maxResponseHeaderBytes>>10)
	case errors.As(err, &dnsErr):
		return delivery.OutcomeRetryable, "dns", dnsMessage(dnsErr)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return delivery.OutcomeRetryable, "timeout", "request timed out"
	case errors.Is(err, syscall.ECONNREFUSED):
		return delivery.OutcomeRetryable, "connection_refused", "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return delivery.OutcomeRetryable, "connection_reset", "connection reset"
	case errors.As(err, &certErr), errors.As(err, &unkAuth), errors.As(err, &hostErr), errors.As(err, &recErr):
		return delivery.OutcomeRetryable, "tls", tlsMessage(err)
	case remoteAlert(err) != "":
		return delivery.OutcomeRetryable, "tls", "TLS handshake failed: the receiver sent the alert \"" + remoteAlert(err) + "\""
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return delivery.OutcomeRetryable, "connection_closed", "connection closed before a response"
	default:
		return delivery.OutcomeRetryable, "network", "network error"
	}
}

// tlsMessage says why the receiver's certificate was not accepted, in
// words of hookd's own (x509's name the host and the certificates).
func tlsMessage(err error) string {
	var (
		unkAuth x509.UnknownAuthorityError
		hostErr x509.HostnameError
		invalid x509.CertificateInvalidError
		recErr  tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unkAuth):
		return "TLS handshake failed: the receiver's certificate is signed by an authority hookd does not trust"
	case errors.As(err, &hostErr):
		return "TLS handshake failed: the receiver's certificate is not for its host"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "TLS handshake failed: the receiver's certificate is expired or not yet valid"
	case errors.As(err, &recErr):
		return "TLS handshake failed: the receiver does not speak TLS"
	}
	return "TLS handshake failed"
}

// remoteAlert is the description of the TLS alert the receiver ended
// the connection with ("certificate required", "bad certificate"), or
// "". crypto/tls reports it as a net.OpError "remote error".
func remoteAlert(err error) string {
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "remote error" || oe.Err == nil {
		return ""
	}
	return strings.TrimPrefix(oe.Err.Error(), "tls: ")
}

// parseRetryAfter reads a Retry-After value (delta-seconds or HTTP-date)
// relative to now. It reports false for an invalid or past value.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if strings.Trim(v, "0123456789") == "" { // delay-seconds = 1*DIGIT
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs > int64(delivery.MaxRetryAfter/time.Second) {
			return delivery.MaxRetryAfter, true // too many digits is a huge delay, not an invalid one
		}
		// Zero would mean "use the retry policy" to Temporal: wait the
		// shortest delay hookd ever waits instead.
		return max(time.Duration(secs)*time.Second, delivery.MinRetryDelay), true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d <= 0 {
		return 0, false
	}
	return min(max(d, delivery.MinRetryDelay), delivery.MaxRetryAfter), true
}

// refusedMessage is the part of a refusal that names no URL: the error
// that wrapped ErrRefused, without the url.Error around it.
func refusedMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		err = oe.Err
	}
	return err.Error()
}

// headersTooLarge reports whether err is the transport refusing a response
// header over its MaxResponseHeaderBytes. net/http exports no error value
// for it, over HTTP/1.1 or HTTP/2, so its messages are matched (Go 1.26's;
// TestHugeResponseHeaders pins the HTTP/1.1 one). Only matched, never shown:
// err's text holds the URL.
func headersTooLarge(err error) bool {
	msg := err.Error()
	for _, m := range []string{
		"server response headers exceeded",                  // HTTP/1.1
		"response header list larger than advertised limit", // HTTP/2
		"header list too large",                             // HTTP/2, interim answers
	} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// dnsMessages are the DNS failures net reports in words of its own; any
// other DNSError.Err carries the underlying error's text, which names the
// resolver ("read udp 10.0.0.2:41234->127.0.0.53:53: i/o timeout").
var dnsMessages = map[string]bool{"no such host": true, "server misbehaving": true, "no answer from DNS server": true}

// dnsMessage says how a lookup failed: the host and the kind of failure,
// never the resolver's address.
func dnsMessage(e *net.DNSError) string {
	what := "failed"
	switch {
	case e.IsNotFound:
		what = "failed: no such host"
	case e.IsTimeout:
		what = "timed out"
	case dnsMessages[e.Err]:
		what = "failed: " + e.Err
	}
	if e.Name == "" {
		return "DNS lookup " + what
	}
	return "DNS lookup of " + e.Name + " " + what
}
