package api

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// Default quotas (Limits): what one tenant or one credential may ask of a
// hookd before it is answered 409 (a count reached) or 429 (a rate).
const (
	DefaultEndpointsPerTenant  = 100
	DefaultTestEventsPerMinute = 10
	DefaultRequestsPerSecond   = 50
	DefaultRequestBurst        = 100
)

// Names of the limits, as the error's "limit" field and the docs name
// them.
const (
	LimitEndpointsPerTenant  = "endpoints_per_tenant"
	LimitTestEventsPerMinute = "test_events_per_endpoint_per_minute"
	LimitRequestsPerSecond   = "requests_per_second_per_token"
)

// Limits are the quotas the API enforces. The zero value of a field is
// its default; a negative value switches the limit off.
type Limits struct {
	// EndpointsPerTenant is the most endpoints one tenant may have; the
	// platform's own endpoints are not counted. Checked in the store's
	// transaction, so concurrent creates never pass it.
	EndpointsPerTenant int
	// TestEventsPerMinute is the most test events (POST
	// /v1/endpoints/{id}/test, or the portal's button) one endpoint may be
	// sent per minute, per process.
	TestEventsPerMinute int
	// RequestsPerSecond and RequestBurst are a token bucket per tenant
	// credential (each tenant token) over every /v1 route, per process.
	// The platform's API keys are not held back: event ingest comes
	// through them.
	RequestsPerSecond float64
	RequestBurst      int
}

// orDefault is v, its default when zero, and 0 (off) when negative.
func orDefault[T int | float64](v, def T) T {
	switch {
	case v < 0:
		return 0
	case v == 0:
		return def
	default:
		return v
	}
}

// quotas holds the limits in force and the rate limiters' state.
type quotas struct {
	endpointsPerTenant int
	testEvents         *buckets // per endpoint ID; nil when off
	requests           *buckets // per credential; nil when off
}

func newQuotas(l Limits, now func() time.Time) *quotas {
	q := &quotas{endpointsPerTenant: orDefault(l.EndpointsPerTenant, DefaultEndpointsPerTenant)}
	if n := orDefault(l.TestEventsPerMinute, DefaultTestEventsPerMinute); n > 0 {
		q.testEvents = newBuckets(float64(n)/60, float64(n), now)
	}
	if rps := orDefault(l.RequestsPerSecond, DefaultRequestsPerSecond); rps > 0 {
		burst := float64(orDefault(l.RequestBurst, DefaultRequestBurst))
		q.requests = newBuckets(rps, max(burst, 1), now)
	}
	return q
}

// limitedError is the answer to a request over a rate: 429 naming the
// limit, with Retry-After.
type limitedError struct {
	err        *Error
	retryAfter time.Duration
}

func (e *limitedError) Error() string { return e.err.Error() }
func (e *limitedError) Unwrap() error { return e.err }

// rateLimited is the error of a request over limit, which may be asked
// again after wait.
func rateLimited(limit string, wait time.Duration, format string, args ...any) error {
	return &limitedError{err: &Error{Code: CodeRateLimited, Limit: limit, Message: fmt.Sprintf(format, args...)}, retryAfter: wait}
}

// endpointLimitReached maps store.ErrLimitReached to the 409 naming the
// endpoints-per-tenant limit.
func (q *quotas) endpointLimitReached(err error) error {
	if errors.Is(err, store.ErrLimitReached) {
		return &Error{Code: CodeConflict, Limit: LimitEndpointsPerTenant,
			Message: fmt.Sprintf("the tenant has %d endpoints, the most it may have; delete one first", q.endpointsPerTenant)}
	}
	return err
}

// allowTest takes one of the endpoint's test events of this minute, or
// says when the next is due.
func (q *quotas) allowTest(endpointID string) error {
	if q.testEvents == nil {
		return nil
	}
	if wait := q.testEvents.take(endpointID); wait > 0 {
		return rateLimited(LimitTestEventsPerMinute, wait, "at most %g test events per endpoint per minute; retry in %s",
			q.testEvents.burst, retryAfterSeconds(wait)+"s")
	}
	return nil
}

// allowRequest answers 429 and returns false when the request's tenant
// credential has spent its bucket.
func (s *Server) allowRequest(w http.ResponseWriter, r *http.Request) bool {
	if s.quotas.requests == nil || scope(r).IsPlatform() {
		return true
	}
	wait := s.quotas.requests.take(scope(r).Actor())
	if wait <= 0 {
		return true
	}
	s.writeError(w, r, rateLimited(LimitRequestsPerSecond, wait, "at most %g requests per second (bursts of %g) per tenant token; retry in %ss",
		s.quotas.requests.rate, s.quotas.requests.burst, retryAfterSeconds(wait)))
	return false
}

// setRetryAfter adds the Retry-After header of a rate-limited error.
func setRetryAfter(w http.ResponseWriter, err error) {
	var le *limitedError
	if errors.As(err, &le) {
		w.Header().Set("Retry-After", retryAfterSeconds(le.retryAfter))
	}
}

// retryAfterSeconds is a wait in whole seconds, at least 1.
func retryAfterSeconds(d time.Duration) string {
	return strconv.FormatInt(max(int64(math.Ceil(d.Seconds())), 1), 10)
}

// maxBuckets bounds the keys a buckets keeps; past it, full buckets (keys
// idle long enough to have refilled) are dropped.
const maxBuckets = 10_000

// buckets is a token bucket per key: rate tokens a second up to burst,
// one per request. In memory, per process.
type buckets struct {
	rate, burst float64
	now         func() time.Time

	mu   sync.Mutex
	byID map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newBuckets(rate, burst float64, now func() time.Time) *buckets {
	return &buckets{rate: rate, burst: burst, now: now, byID: map[string]*bucket{}}
}

// take spends a token of key's bucket and returns 0, or returns how long
// until one is there (spending nothing).
func (b *buckets) take(key string) time.Duration {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	bk, ok := b.byID[key]
	if !ok {
		if len(b.byID) >= maxBuckets {
			b.dropFull(now)
		}
		bk = &bucket{tokens: b.burst, at: now}
		b.byID[key] = bk
	}
	bk.tokens = min(b.burst, bk.tokens+now.Sub(bk.at).Seconds()*b.rate)
	bk.at = now
	if bk.tokens >= 1 {
		bk.tokens--
		return 0
	}
	return time.Duration((1 - bk.tokens) / b.rate * float64(time.Second))
}

// dropFull forgets the buckets that have refilled: they are as a new
// key's.
func (b *buckets) dropFull(now time.Time) {
	for k, bk := range b.byID {
		if bk.tokens+now.Sub(bk.at).Seconds()*b.rate >= b.burst {
			delete(b.byID, k)
		}
	}
}
