package api

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hookd/hookd/internal/authz"
)

// Defaults of the failed-authentication throttle: a client address with
// DefaultAuthFailureLimit failures within DefaultAuthFailureWindow is
// answered 429 until the window ends.
const (
	DefaultAuthFailureLimit  = 20
	DefaultAuthFailureWindow = time.Minute
	// authFailureLogEvery is the least time between two log lines about
	// failed authentications; the ones in between are counted in the next.
	authFailureLogEvery = time.Second
	// maxTrackedClients bounds the addresses the throttle remembers.
	maxTrackedClients = 10000
)

// authFailures counts failed authentications per client address in a
// fixed window, refuses an address over the limit until its window ends,
// and logs failures at most once per authFailureLogEvery, naming the
// credential only by its fingerprint.
type authFailures struct {
	limit  int
	window time.Duration
	log    *slog.Logger
	now    func() time.Time

	mu         sync.Mutex
	clients    map[string]*failureWindow
	lastLog    time.Time
	suppressed int
}

// failureWindow is one address's failures since start.
type failureWindow struct {
	start time.Time
	n     int
}

func newAuthFailures(limit int, window time.Duration, log *slog.Logger) *authFailures {
	if limit <= 0 {
		limit = DefaultAuthFailureLimit
	}
	if window <= 0 {
		window = DefaultAuthFailureWindow
	}
	return &authFailures{limit: limit, window: window, log: log, now: time.Now, clients: map[string]*failureWindow{}}
}

// blocked says how long client must wait when it reached the limit in its
// current window (0: not blocked).
func (f *authFailures) blocked(client string) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	w, ok := f.clients[client]
	if !ok {
		return 0
	}
	now := f.now()
	if left := w.start.Add(f.window).Sub(now); left > 0 && w.n >= f.limit {
		return left
	}
	return 0
}

// fail records a failed authentication by client with credential (never
// logged; only its fingerprint) on route.
func (f *authFailures) fail(client, credential, route string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	w, ok := f.clients[client]
	if !ok || !now.Before(w.start.Add(f.window)) {
		if !ok && len(f.clients) >= maxTrackedClients {
			f.sweep(now)
		}
		w = &failureWindow{start: now}
		f.clients[client] = w
	}
	w.n++
	if now.Sub(f.lastLog) < authFailureLogEvery {
		f.suppressed++
		return
	}
	f.log.Warn("authentication failed", "client", client, "route", route,
		"credential", fingerprint(credential), "failures_in_window", w.n,
		"throttled", w.n >= f.limit, "unlogged_since_last", f.suppressed)
	f.lastLog, f.suppressed = now, 0
}

// sweep forgets windows that ended; if every address is still in its
// window, it forgets them all rather than grow without bound.
func (f *authFailures) sweep(now time.Time) {
	for c, w := range f.clients {
		if !now.Before(w.start.Add(f.window)) {
			delete(f.clients, c)
		}
	}
	if len(f.clients) >= maxTrackedClients {
		clear(f.clients)
	}
}

// fingerprint names a credential in logs without revealing it: the first
// 8 hex digits of its SHA-256, or "none" when there was none.
func fingerprint(credential string) string {
	if credential == "" {
		return "none"
	}
	return authz.HashToken(credential)[:8]
}

// clientAddr is the address failures are counted by: the connection's
// peer or, when that peer is a trusted proxy, the last address in
// X-Forwarded-For that is not one. An IPv6 address counts by its /64,
// which one client usually holds whole.
func clientAddr(r *http.Request, trusted []netip.Prefix) string {
	addr := peerAddr(r.RemoteAddr)
	if addr.IsValid() && isTrusted(addr, trusted) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break
			}
			addr = hop.Unmap()
			if !isTrusted(addr, trusted) {
				break
			}
		}
	}
	if !addr.IsValid() {
		return r.RemoteAddr
	}
	if addr.Is6() {
		return netip.PrefixFrom(addr, 64).Masked().String()
	}
	return addr.String()
}

func peerAddr(remote string) netip.Addr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// writeThrottled answers a client over its failure limit: 429 with
// Retry-After in whole seconds.
func (s *Server) writeThrottled(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	secs := int((wait + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	s.writeError(w, r, &Error{Code: CodeRateLimited, Message: "too many failed authentications from this address; retry after " + strconv.Itoa(secs) + "s"})
}
