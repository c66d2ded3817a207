package receiver

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hookd/hookd/signing"
)

// Verification errors, re-exported from the signing package so callers need
// only this package. Test them with errors.Is.
var (
	ErrMissingHeader = signing.ErrMissingHeader
	ErrMalformed     = signing.ErrMalformed
	ErrTooOld        = signing.ErrTooOld
	ErrTooNew        = signing.ErrTooNew
	ErrNoMatch       = signing.ErrNoMatch
	// ErrNoSecrets reports a Verifier built without any secret.
	ErrNoSecrets = errors.New("no webhook secrets configured")
)

// Option adjusts a Verifier.
type Option func(*signing.Verifier)

// WithTolerance sets how far the webhook-timestamp may be from the clock, in
// either direction. The default is 5 minutes (signing.DefaultTolerance).
func WithTolerance(d time.Duration) Option {
	return func(v *signing.Verifier) { v.Tolerance = d }
}

// WithClock sets the clock the timestamp is checked against (tests).
func WithClock(now func() time.Time) Option {
	return func(v *signing.Verifier) { v.Now = now }
}

// Verifier verifies deliveries against a fixed set of secrets. Decode the
// secrets once with NewVerifier and share the Verifier between requests; it
// is safe for concurrent use.
type Verifier struct {
	v *signing.Verifier
}

// NewVerifier returns a Verifier accepting a signature under any of the
// "whsec_" secrets (several while a rotation overlaps).
func NewVerifier(secrets []string, opts ...Option) (*Verifier, error) {
	if len(secrets) == 0 {
		return nil, ErrNoSecrets
	}
	v, err := signing.NewVerifier(secrets...)
	if err != nil {
		return nil, fmt.Errorf("new verifier: %w", err)
	}
	for _, o := range opts {
		o(v)
	}
	return &Verifier{v: v}, nil
}

// NewProfileVerifier returns a Verifier of the signing profile p, as the
// endpoint's "signing" field sets it, accepting a signature under any of
// the "whsec_" secrets. For the hmac-sha256 scheme the timestamp is
// checked against the tolerance only when it is signed (content
// "timestamp.body"). A profile hookd would refuse is an error naming the
// field (*signing.ProfileError).
func NewProfileVerifier(p signing.Profile, secrets []string, opts ...Option) (*Verifier, error) {
	if len(secrets) == 0 {
		return nil, ErrNoSecrets
	}
	v, err := signing.NewProfileVerifier(p, secrets...)
	if err != nil {
		return nil, fmt.Errorf("new verifier: %w", err)
	}
	for _, o := range opts {
		o(v)
	}
	return &Verifier{v: v}, nil
}

// idHeader is the header carrying the delivery ID.
func (v *Verifier) idHeader() string {
	if v.v.Profile.Scheme == signing.SchemeHMACSHA256 {
		return v.v.Profile.DeliveryIDHeader
	}
	return signing.HeaderID
}

// Verify checks the signature headers in h (Standard Webhooks', or the
// profile's) against rawBody and returns the verified delivery. Errors match ErrMissingHeader, ErrMalformed,
// ErrTooOld, ErrTooNew or ErrNoMatch under errors.Is.
func (v *Verifier) Verify(rawBody []byte, h http.Header) (*Delivery, error) {
	id, ts, err := v.v.Verify(rawBody, h)
	if err != nil {
		return nil, fmt.Errorf("verify webhook: %w", err)
	}
	eventType, eventID := HeaderEventType, HeaderEventID
	if p := v.v.Profile; p.Scheme == signing.SchemeHMACSHA256 {
		eventType, eventID = p.EventTypeHeader, p.EventIDHeader
	}
	return &Delivery{
		ID:        id,
		Timestamp: ts,
		EventType: h.Get(eventType),
		EventID:   h.Get(eventID),
		Body:      rawBody,
		Digest:    Digest(rawBody),
	}, nil
}

// Verify checks rawBody and headers h against any of secrets with the default
// 5-minute tolerance. Use NewVerifier to set options or to decode the secrets
// once for many requests.
func Verify(rawBody []byte, h http.Header, secrets ...string) (*Delivery, error) {
	v, err := NewVerifier(secrets)
	if err != nil {
		return nil, err
	}
	return v.Verify(rawBody, h)
}
