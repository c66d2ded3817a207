package delivery

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// TaskQueue is the Temporal task queue hookd's workers poll.
const TaskQueue = "hookd"

// Status is where a delivery stands.
type Status string

// Delivery states.
const (
	StatusPending   Status = "pending"   // not yet delivered; attempts remain
	StatusDelivered Status = "delivered" // a 2xx was received
	StatusFailed    Status = "failed"    // a permanent failure stopped it
	StatusExhausted Status = "exhausted" // every attempt of the schedule failed
	// StatusExpunged: the event was expunged before the delivery
	// succeeded; it is not attempted again and not dead-lettered.
	StatusExpunged Status = "expunged"
)

// Request is a delivery workflow's input: everything needed to deliver one
// event to one endpoint except the endpoint's URL and secrets, which are
// loaded at each attempt so they never enter workflow history.
type Request struct {
	DeliveryID string `json:"delivery_id"`
	EventID    string `json:"event_id"`
	EventType  string `json:"event_type"`
	EndpointID string `json:"endpoint_id"`
	// TenantID is the tenant the endpoint belongs to; "" for the
	// platform's own endpoints (and for deliveries started before tenants).
	TenantID string `json:"tenant_id,omitempty"`
	// TenantIncarnation is that tenant's incarnation
	// (store.Tenant.Incarnation); "" for none or one from before
	// incarnations.
	TenantIncarnation string `json:"tenant_incarnation,omitempty"`
	// Body is the payload, serialized once at ingest; every attempt sends
	// exactly these bytes. In JSON (wire.go) it is the "payload" object
	// when it embeds byte for byte, else the string "body"; ingest
	// guarantees it is valid UTF-8, so it round-trips either way.
	Body string `json:"body"`
	// SealedBody is the body sealed with the event's data key
	// (internal/eventkey), set by ingest instead of Body when the event
	// has a key: the attempt opens it with the key it reads from the
	// store, and once the event is expunged no one can. Nil in requests
	// from before per-event keys (or with them off), whose Body is the
	// plaintext under the payload codec alone.
	SealedBody []byte `json:"sealed_body,omitempty"`
	// Schedule is the delay before each retry; its length fixes the budget.
	Schedule []time.Duration `json:"schedule"`
	// Timeout bounds one HTTP attempt.
	Timeout time.Duration `json:"timeout"`
	// AcceptedAt is when hookd accepted the event (zero in requests from
	// before the event record); a dead letter ends within the dedup window
	// counted from it.
	AcceptedAt time.Time `json:"accepted_at,omitzero"`
	// Redrive is set when an operator redrove the delivery.
	Redrive *Redrive `json:"redrive,omitempty"`
	// Run is this run's number among the runs of the delivery ID: 1 for
	// the first, one more per redrive (0 in requests from before it). It
	// is the HookdRun search attribute; continue-as-new keeps it.
	Run int `json:"run,omitempty"`
	// SingleAttempt makes the delivery one attempt, whatever its
	// schedule: it is not retried, does not wait for a held-back
	// endpoint and is never dead-lettered (a test event). False in
	// requests from before it, whose runs go on as they started.
	SingleAttempt bool `json:"single_attempt,omitempty"`
	// Slot is the rate limit's slot reserved for the first attempt when
	// the event was accepted: the run's start is delayed to just before
	// it, and the first attempt goes in it. Nil when the endpoint has no
	// limit, for a duplicate post, and in requests from before it.
	Slot *Slot `json:"slot,omitempty"`
	// Resume carries the attempts made so far when a long-waiting run
	// continues as new.
	Resume []Attempt `json:"resume,omitempty"`
}

// ReservedTypes prefixes the event types hookd alone publishes (its
// operational events, internal/opevents).
const ReservedTypes = "hookd."

// Quiet reports whether the delivery's transitions are not announced as
// operational events: a delivery of one of hookd's own events (no event
// about an event's delivery, so no loop) or of a single-attempt test.
func (r Request) Quiet() bool {
	return r.SingleAttempt || strings.HasPrefix(r.EventType, ReservedTypes)
}

// Recovered is the input of the ActivityRecovered activity: a delivery
// (its request without the body) delivered after failing, by attempt
// Attempts, answered Status at At.
type Recovered struct {
	Request  Request   `json:"request"`
	Attempts int       `json:"attempts"`
	Status   int       `json:"status,omitempty"`
	At       time.Time `json:"at"`
}

// Redrive records who redrove a dead letter and why.
type Redrive struct {
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// Attempts is the delivery's budget: the first attempt plus one per retry.
func (r Request) Attempts() int { return 1 + len(r.Schedule) }

// Attempt is one HTTP attempt in a delivery's timeline.
type Attempt struct {
	Number   int           `json:"number"` // 1-based within the current run
	Start    time.Time     `json:"start"`
	Duration time.Duration `json:"duration"`
	// Status is the HTTP status, or 0 when no response arrived.
	Status int `json:"status,omitempty"`
	// ErrorClass names a network failure (timeout, connection_refused, ...)
	// or the HTTP failure ("http_5xx", "http_4xx", ...).
	ErrorClass string `json:"error_class,omitempty"`
	Error      string `json:"error,omitempty"`
	// Response holds at most the first 1 KiB of the response body.
	Response string  `json:"response,omitempty"`
	Outcome  Outcome `json:"outcome"`
	// NextDelay is the wait before the next attempt, and DelayReason why
	// ("schedule" or "retry-after"); zero after the last attempt.
	NextDelay   time.Duration `json:"next_delay,omitempty"`
	DelayReason string        `json:"delay_reason,omitempty"`
	NextAttempt time.Time     `json:"next_attempt,omitzero"`
	// Slot, on an attempt deferred by the endpoint's rate limit, is the
	// slot it reserved (NextAttempt): the attempt made when it comes
	// carries it back (RetryInput.Slot) and goes without reserving again.
	Slot *Slot `json:"slot,omitempty"`
}

// Slot is an attempt's reservation under its endpoint's rate limit: it
// may start at At, under the limit set at Since. Lead, on a slot
// reserved at ingest (Request.Slot), is how long before At its run
// starts: the attempt waits out the rest in place.
type Slot struct {
	At    time.Time     `json:"at"`
	Since time.Time     `json:"since"`
	Lead  time.Duration `json:"lead,omitempty"`
}

// Outcome classifies an attempt.
type Outcome string

// Attempt outcomes.
const (
	OutcomeSuccess   Outcome = "success"
	OutcomeRetryable Outcome = "retryable"
	OutcomePermanent Outcome = "permanent"
	// OutcomeDeferred means no request was sent and no attempt counted:
	// the endpoint is disabled or its circuit is open. NextAttempt says
	// when to ask again and DelayReason why.
	OutcomeDeferred Outcome = "deferred"
	// OutcomeExpunged means no request was sent: the event's key is gone
	// (the event was expunged, or its record pruned), so the sealed body
	// cannot be opened. The delivery ends expunged.
	OutcomeExpunged Outcome = "expunged"
)

// Why a deferred attempt waits (Attempt.DelayReason, Result.WaitReason).
const (
	WaitCircuitOpen = "circuit open"
	WaitDisabled    = "endpoint disabled"
	// WaitEndpointBusy: the endpoint already has its share of the
	// worker's attempt slots in flight.
	WaitEndpointBusy = "endpoint busy"
	// WaitRateLimit: the endpoint's rate limit gave the attempt a slot
	// ahead (Attempt.Slot); the delivery waits for it.
	WaitRateLimit = "rate limit"
)

// Why a retry waits as long as it does (Attempt.DelayReason).
const (
	DelaySchedule   = "schedule"    // the endpoint's retry schedule, jittered
	DelayRetryAfter = "retry-after" // the receiver's Retry-After
)

// ClassInternal is the error class of an attempt hookd could not make
// (the attempt's own failure, not the receiver's); it does not count
// against the circuit.
const ClassInternal = "internal"

// Result is a delivery run's final state and whole timeline.
type Result struct {
	Status   Status    `json:"status"`
	Attempts []Attempt `json:"attempts"`
	// WaitUntil, on a pending result, is when the delivery asks again
	// after a deferral, and WaitReason why it waits.
	WaitUntil  time.Time `json:"wait_until,omitzero"`
	WaitReason string    `json:"wait_reason,omitempty"`
	// Slot is the rate limit's slot the delivery waits for, if it does.
	Slot *Slot `json:"slot,omitempty"`
}

// Last returns the latest attempt, or the zero Attempt.
func (r Result) Last() Attempt {
	if len(r.Attempts) == 0 {
		return Attempt{}
	}
	return r.Attempts[len(r.Attempts)-1]
}

// EventDigest is the hex SHA-256 of an event's type and body; ingest
// compares it to tell a re-posted event from a different one reusing its ID.
func EventDigest(eventType, body string) string {
	sum := sha256.Sum256([]byte(eventType + "\n" + body))
	return hex.EncodeToString(sum[:])
}

// DeadLetter is a delivery that failed permanently or exhausted its
// schedule, parked until an operator redrives it.
type DeadLetter struct {
	Request  Request   `json:"request"`
	Reason   Status    `json:"reason"` // StatusFailed or StatusExhausted
	Attempts []Attempt `json:"attempts"`
	DeadAt   time.Time `json:"dead_at"`
}

// LastError is how an attempt failed, in one line: its error class, and
// the error's message when there is one ("timeout: no answer within 3s").
func (a Attempt) LastError() string {
	if a.Error == "" {
		return a.ErrorClass
	}
	return a.ErrorClass + ": " + a.Error
}

// DeadLetterParams is a dead-letter workflow's input: its retention, and
// what it holds (also in its search attributes), so the Web UI shows it.
// The entry itself arrives by signal.
type DeadLetterParams struct {
	// Retention is how long the entry waits for a redrive before it expires.
	Retention  time.Duration `json:"retention"`
	DeliveryID string        `json:"delivery_id,omitempty"`
	EndpointID string        `json:"endpoint_id,omitempty"`
	EventID    string        `json:"event_id,omitempty"`
	EventType  string        `json:"event_type,omitempty"`
	TenantID   string        `json:"tenant_id,omitempty"`
	Reason     Status        `json:"reason,omitempty"` // failed or exhausted
}

// DeadLetterOutcome is how a dead letter ended.
type DeadLetterOutcome struct {
	Outcome string    `json:"outcome"` // "redriven" or "expired"
	Redrive *Redrive  `json:"redrive,omitempty"`
	At      time.Time `json:"at"`
}
