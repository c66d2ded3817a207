package activities

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/tracing"
	"github.com/hookd/hookd/signing"
)

// Response bodies are read up to readCap; at most keepCap is kept.
const (
	readCap = 64 << 10
	keepCap = 1 << 10
)

// attempt makes attempt number n of req and decides what comes next;
// slot is the rate limit's slot a woken delivery holds, if any (an
// attempt deferred before it reaches the limit hands it back). It never
// returns the endpoint's URL or secrets, not even inside errors.
func (a *Activities) attempt(ctx context.Context, req delivery.Request, n int, slot *delivery.Slot) delivery.Attempt {
	start := a.now()
	at := delivery.Attempt{Number: n, Start: start}
	release, turn, ok, first := a.shares.take(req.EndpointID, start, delivery.AttemptTimeout(req.Timeout))
	if !ok {
		if first {
			a.log.Info("endpoint has its share of attempts in flight; deferring the rest", "endpoint_id", req.EndpointID, "share", a.shares.limit)
		}
		// A woken delivery keeps the rate limit's slot it holds: it is
		// not reserved again behind the queue when its turn comes.
		return delivery.Attempt{Start: start, Outcome: delivery.OutcomeDeferred, NextAttempt: turn, DelayReason: delivery.WaitEndpointBusy, Slot: slot}
	}
	defer release()
	l, err := a.load(ctx, req, start)
	if errors.Is(err, errExpunged) {
		return delivery.Attempt{Number: n, Start: start, Outcome: delivery.OutcomeExpunged, Error: err.Error()}
	}
	ep := l.ep
	var g gate
	if err == nil {
		if g = a.admit(ctx, req, ep, l.breaker, slot, start); !g.allowed {
			return delivery.Attempt{Start: start, Outcome: delivery.OutcomeDeferred, NextAttempt: g.wait, DelayReason: g.reason, Slot: g.slot}
		}
	}
	var (
		status     response
		retryAfter string
		span       trace.Span // the request's, when traced
	)
	if err == nil {
		// The attempt starts once the gates let it through: a wait in
		// place for the rate limit's slot, and the store's reads, are
		// hookd's time, not the receiver's latency, and the signature's
		// timestamp is the moment of sending.
		start = a.now()
		at.Start = start
		if a.tracer != nil {
			ctx, span = a.startAttemptSpan(ctx, req, ep, n)
		}
		status, retryAfter, err = a.send(ctx, req, l.body, ep, l.keys, n, start)
	}
	switch {
	case err != nil:
		at.Outcome, at.ErrorClass, at.Error = classifyError(err)
	default:
		at.Status = status.code
		at.Response = status.body
		at.Outcome, at.ErrorClass = classifyStatus(status.code)
	}
	// A receiver answering 410 Gone disables its endpoint at once; this
	// delivery is then held like the endpoint's others, no attempt spent.
	gone := at.Status == http.StatusGone && ep != nil && !req.SingleAttempt
	held := gone && a.disable(ctx, ep, opevents.DisabledGone)
	if gone && !held {
		at.Outcome, at.ErrorClass, at.Error = delivery.OutcomeRetryable, delivery.ClassInternal, "410 Gone: the endpoint could not be disabled"
	}
	if at.Outcome == delivery.OutcomeRetryable && n < req.Attempts() {
		at.NextDelay, at.DelayReason = a.nextDelay(req.Schedule[n-1], retryAfter, start)
		at.NextAttempt = a.now().Add(at.NextDelay)
	}
	at.Duration = a.now().Sub(start)
	if span != nil {
		endAttemptSpan(span, at)
	}
	if ep != nil && !gone {
		a.record(ctx, ep, g, at)
	}
	if a.observe != nil {
		a.observe(req.EndpointID, at)
	}
	if held {
		off := a.disabled(start)
		return delivery.Attempt{Start: start, Outcome: delivery.OutcomeDeferred, NextAttempt: off.wait, DelayReason: off.reason}
	}
	return at
}

// nextDelay applies ±20% jitter to the scheduled delay, unless the receiver
// sent a valid Retry-After, which replaces it.
func (a *Activities) nextDelay(scheduled time.Duration, retryAfter string, now time.Time) (time.Duration, string) {
	if d, ok := parseRetryAfter(retryAfter, now); ok {
		return d, delivery.DelayRetryAfter
	}
	return scheduled + time.Duration(float64(scheduled)*delivery.Jitter*a.jitter()), delivery.DelaySchedule
}

type response struct {
	code int
	body string
}

// send signs and POSTs the body, returning the response status, a prefix
// of its body and its Retry-After header. The endpoint's signing profile
// sets the signature and identity headers, signed with every key.
func (a *Activities) send(ctx context.Context, req delivery.Request, body []byte, ep *store.Endpoint, keys [][]byte, n int, now time.Time) (response, string, error) {
	ctx, cancel := context.WithTimeout(ctx, delivery.AttemptTimeout(req.Timeout))
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return response{}, "", errEndpointURL
	}
	h := hr.Header
	setHeaders(h, ep.Credentials)
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", a.userAgent)
	ep.Signing.Sign(h, keys, signing.Message{ID: req.DeliveryID, EventID: req.EventID, EventType: req.EventType,
		Attempt: n, Timestamp: now, Body: body})
	if ep.PropagateTrace && a.tracer != nil {
		tracing.Inject(ctx, h)
	}
	client, err := a.clientFor(ep, now)
	if err != nil {
		return response{}, "", err
	}
	if err := a.authorize(ctx, hr, ep); err != nil {
		return response{}, "", err
	}
	resp, err := client.Do(hr)
	if err == nil && resp.StatusCode == http.StatusUnauthorized && usesOAuth2(ep) {
		resp, err = a.retryUnauthorized(ctx, client, hr, ep, resp, body)
	}
	if err != nil {
		return response{}, "", err
	}
	if resp.StatusCode < 200 {
		// A 101 is the only 1xx net/http returns, and its body is the
		// raw connection, read outside the request's context: a receiver
		// holding it would hold the attempt. Close it unread.
		resp.Body.Close()
		return response{code: resp.StatusCode}, "", nil
	}
	// The transport ends a body's reads at the deadline; closing it then
	// makes sure of it whatever the body is.
	stop := context.AfterFunc(ctx, func() { resp.Body.Close() })
	defer stop()
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, readCap))
	return response{code: resp.StatusCode, body: truncate(answer)}, resp.Header.Get("Retry-After"), nil
}

var (
	errEndpointURL     = fmt.Errorf("%w: endpoint URL is invalid", ErrRefused)
	errInternal        = errors.New("endpoint store unavailable")
	errEndpointDeleted = fmt.Errorf("%w: endpoint deleted", ErrRefused)
)

// loaded is what an attempt reads before it sends.
type loaded struct {
	ep      *store.Endpoint
	keys    [][]byte // the signing keys of its valid secrets
	body    []byte
	breaker circuit.Breaker
}

// load reads, in one query (store.ReadForAttempt), the endpoint with its
// signing profile, the keys of its current secrets under that profile
// (every valid one while a rotation overlaps), its circuit and the body
// to send (eventbody.go).
func (a *Activities) load(ctx context.Context, req delivery.Request, now time.Time) (loaded, error) {
	r, err := a.endpoints.ReadForAttempt(ctx, req.EndpointID, req.EventID, now)
	if errors.Is(err, store.ErrNotFound) {
		return loaded{}, errEndpointDeleted
	}
	if err != nil {
		return loaded{}, fmt.Errorf("%w: %w", errInternal, err)
	}
	body, err := openBody(req, r.Key)
	if err != nil {
		return loaded{}, err
	}
	keys := make([][]byte, 0, len(r.Secrets))
	for _, sec := range r.Secrets {
		key, err := r.Endpoint.Signing.Key(sec.Value)
		if err != nil {
			return loaded{}, fmt.Errorf("secret of %s: %w", req.EndpointID, signing.ErrInvalidSecret)
		}
		keys = append(keys, key)
	}
	return loaded{ep: r.Endpoint, keys: keys, body: body, breaker: r.Circuit}, nil
}

// truncate keeps at most keepCap bytes of a response body as valid UTF-8.
func truncate(b []byte) string {
	if len(b) > keepCap {
		b = b[:keepCap]
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}
