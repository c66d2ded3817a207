package receiver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/hookd/hookd/signing"
)

// Headers hookd adds next to the Standard Webhooks ones.
const (
	HeaderEventType = signing.HeaderEventType
	HeaderEventID   = signing.HeaderEventID
)

// Delivery is one verified delivery. Only Verify (and so Middleware) makes
// one from a request; a Delivery in hand means its signature matched.
type Delivery struct {
	// ID is the webhook-id (or the profile's delivery ID header): hookd's
	// stable delivery ID, the same on every attempt and redrive of one
	// event to one endpoint.
	ID string
	// Timestamp is the webhook-timestamp of this attempt (the profile's
	// timestamp header; signed unless its content is the body alone).
	Timestamp time.Time
	// EventType is the hookd-event-type header (not covered by the
	// signature; use the body for anything security relevant).
	EventType string
	// EventID is the hookd-event-id header (not covered by the signature).
	EventID string
	// Body is the raw request body, exactly as signed.
	Body []byte
	// Digest is the lowercase hex SHA-256 of Body. The inbox compares it to
	// tell a duplicate from a different message reusing an ID.
	Digest string
}

// Digest returns the lowercase hex SHA-256 of body, as in Delivery.Digest.
func Digest(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

type ctxKey struct{}

// NewContext returns a copy of ctx carrying d. Middleware uses it; tests of
// handlers can too.
func NewContext(ctx context.Context, d *Delivery) context.Context {
	return context.WithValue(ctx, ctxKey{}, d)
}

// FromContext returns the verified delivery Middleware stored in ctx.
func FromContext(ctx context.Context) (*Delivery, bool) {
	d, ok := ctx.Value(ctxKey{}).(*Delivery)
	return d, ok && d != nil
}
