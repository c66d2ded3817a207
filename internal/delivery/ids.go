package delivery

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// The prefixes of the IDs hookd makes, one home for all of them: a
// prefix says what an ID names wherever it shows (API, logs, the Web UI).
// Credentials (API keys, tenant tokens, portal links and sessions) have
// prefixes of their own in internal/authz.
const (
	PrefixEndpoint   = "ep_"
	PrefixEvent      = "evt_"      // generated event IDs; clients may bring their own
	PrefixTestEvent  = "evt_test_" // POST /v1/endpoints/{id}/test
	PrefixDelivery   = "dlv_"      // derived from event and endpoint (ID)
	PrefixDeadLetter = "dead_"     // the dead letter of a delivery (DeadLetterID)
	PrefixWake       = "wake_"     // an endpoint's wake-up (WakeID)
	PrefixRedriveJob = "redrive_"  // a bulk redrive job
)

// idEncoding is the alphabet of every hookd ID: lowercase base32 without
// the letters easily misread (i, l, o, u).
var idEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// ID derives the delivery ID of an event sent to an endpoint. It is
// deterministic, so re-posting an event yields the same workflow ID and
// Temporal refuses the duplicate start.
func ID(eventID, endpointID string) string {
	sum := sha256.Sum256([]byte(eventID + "\x00" + endpointID))
	return PrefixDelivery + idEncoding.EncodeToString(sum[:16])
}

// NewID returns prefix + 128 random bits in the same alphabet: the IDs
// hookd makes up (endpoints, generated event IDs, redrive jobs). Random,
// so never call it from a workflow.
func NewID(prefix string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return prefix + idEncoding.EncodeToString(b)
}

// DeadLetterID is the workflow ID of a delivery's dead letter.
func DeadLetterID(deliveryID string) string {
	return PrefixDeadLetter + strings.TrimPrefix(deliveryID, PrefixDelivery)
}

// WakeID is the workflow ID of endpointID's wake-up: one at a time per
// endpoint, so a second recover joins the running one.
func WakeID(endpointID string) string { return PrefixWake + endpointID }
