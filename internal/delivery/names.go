package delivery

import (
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// Workflow, activity, signal and query names. Workflows refer to activities
// by name so they never import the activities' I/O.
const (
	WorkflowDelivery   = "Delivery"
	WorkflowDeadLetter = "DeadLetter"

	ActivityFirstAttempt = "FirstAttempt"
	ActivityRetry        = "Retry"
	ActivityDeadLetter   = "DeadLetter"
	ActivityRedrive      = "StartRedrive"
	ActivityAdmit        = "Admit"
	// ActivityWakeAttempt is the attempt a deferred delivery makes when
	// its wait ends: a local activity, like the first attempt.
	ActivityWakeAttempt = "WakeAttempt"
	// ActivityRecovered announces a delivery delivered after failing
	// (hookd.delivery.recovered); its input is a Recovered.
	ActivityRecovered = "DeliveryRecovered"

	// SignalRedrive asks a dead letter to redrive its delivery. Its optional
	// argument is a RedriveSignal; the temporal CLI may send none.
	SignalRedrive = "redrive"
	// SignalDeadLetter hands a dead-letter workflow its entry.
	SignalDeadLetter = "dead-letter"
	// SignalRecover tells a delivery waiting on its endpoint's open
	// circuit or disabled switch that an operator recovered the endpoint:
	// its wait ends early. Its optional argument is a RecoverSignal.
	SignalRecover = "recover"
	// UpdateRecover is the recover signal as an update, with the same
	// argument: it is accepted only while the delivery waits, and it
	// completes once the woken delivery has made its attempt, so a
	// wake-up that waits on it goes only as fast as the deliveries drain.
	// Unlike a signal it writes nothing until then.
	UpdateRecover = "recover"
	// SignalExpunge tells a delivery its event was expunged: it ends
	// expunged at once, whatever it waits on. It carries no argument
	// (who and why stay in the event record, out of history).
	SignalExpunge = "expunge"

	QueryState = "state"
	QueryEntry = "entry"
)

// MemoDigest is the memo field holding a delivery's EventDigest.
const MemoDigest = "event_sha256"

// Memo fields of a dead letter, so a list shows how it died without
// reading each entry: the last attempt's HTTP status (0: no response)
// and its error ("class: message").
const (
	MemoLastStatus = "last_status"
	MemoLastError  = "last_error"
)

// RedriveSignal is the optional argument of the redrive signal.
type RedriveSignal struct {
	By     string `json:"by,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// RecoverSignal is the optional argument of the recover signal: who
// recovered the endpoint, why, and the earliest time the delivery should
// try again (zero: at once), which spreads many waiting deliveries.
type RecoverSignal struct {
	By        string    `json:"by,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	NotBefore time.Time `json:"not_before,omitzero"`
	// Slots, on a wake-up for a changed rate limit, wakes the deliveries
	// whose start is still delayed to their slot too (Request.Slot), by
	// update: a signal does not end a start's delay.
	Slots bool `json:"slots,omitempty"`
}

// StartOptions returns the options that start a delivery workflow. Ingest
// passes REJECT_DUPLICATE so a re-posted event starts nothing; a redrive
// passes ALLOW_DUPLICATE_FAILED_ONLY so only a dead delivery runs again.
func StartOptions(req Request, reuse enumspb.WorkflowIdReusePolicy) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID:                    req.DeliveryID,
		TaskQueue:             TaskQueue,
		WorkflowIDReusePolicy: reuse,
		// Report a duplicate start instead of silently returning the
		// existing run: ingest needs to know.
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		StaticSummary:                            req.EventType + " -> " + req.EndpointID,
		TypedSearchAttributes:                    temporal.NewSearchAttributes(req.searchAttributes()...),
		Memo:                                     req.memo(),
	}
}

// memo is a delivery's memo: the digest of its event's body, unless the
// body is sealed with the event's key (a digest would outlive the key).
func (r Request) memo() map[string]any {
	if r.SealedBody != nil {
		return nil
	}
	return map[string]any{MemoDigest: EventDigest(r.EventType, r.Body)}
}

// Error types the Retry activity fails with; the Delivery workflow maps
// them to the final status.
const (
	ErrTypeRetryable = "retryable"
	ErrTypePermanent = "permanent"
	ErrTypeExhausted = "exhausted"
	// ErrTypeExpunged: the attempt found the event expunged.
	ErrTypeExpunged = "expunged"
)

// ErrTypeNotWaiting rejects a recover update sent to a delivery that is
// not waiting.
const ErrTypeNotWaiting = "not_waiting"

// RetryInput is the Retry and WakeAttempt activities' input: the request
// and the attempts made before it.
type RetryInput struct {
	Request Request   `json:"request"`
	Prior   []Attempt `json:"prior"`
	// Slot, on the attempt of a delivery woken for the rate limit's slot
	// it reserved, is that slot: the attempt goes in it without reserving
	// another, so a waiting delivery keeps its place.
	Slot *Slot `json:"slot,omitempty"`
}

// searchAttributes are the search attributes a delivery of req starts
// with; its dead letter starts with the same plus its own.
func (req Request) searchAttributes() []temporal.SearchAttributeUpdate {
	attrs := []temporal.SearchAttributeUpdate{
		AttrEndpointID.ValueSet(req.EndpointID),
		AttrEventType.ValueSet(req.EventType),
		AttrEventID.ValueSet(req.EventID),
	}
	if req.TenantID != "" {
		attrs = append(attrs, AttrTenantID.ValueSet(req.TenantID))
	}
	if req.TenantIncarnation != "" {
		attrs = append(attrs, AttrTenantIncarnation.ValueSet(req.TenantIncarnation))
	}
	if !req.AcceptedAt.IsZero() {
		attrs = append(attrs, AttrCreatedAt.ValueSet(req.AcceptedAt))
	}
	if req.Run > 0 {
		attrs = append(attrs, AttrRun.ValueSet(int64(req.Run)))
	}
	return attrs
}

// DeadLetterSearchAttributes are the search attributes a dead letter of
// dl starts with.
func DeadLetterSearchAttributes(dl DeadLetter) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(append(dl.Request.searchAttributes(),
		AttrDeliveryID.ValueSet(dl.Request.DeliveryID),
		AttrReason.ValueSet(string(dl.Reason)),
	)...)
}

// AdmitInput is the Admit activity's input: what a deferred delivery asks
// on each wake-up, whether its endpoint takes attempts again. It carries
// no body, so waiting adds little to the workflow's history.
type AdmitInput struct {
	DeliveryID string `json:"delivery_id"`
	EndpointID string `json:"endpoint_id"`
	// Redrive is set for an operator's redrive, which a disabled endpoint
	// does not hold back.
	Redrive bool `json:"redrive,omitempty"`
}

// Admission is the Admit activity's answer: a zero WaitUntil lets the
// delivery attempt now; otherwise it waits until then, for WaitReason.
type Admission struct {
	WaitUntil  time.Time `json:"wait_until,omitzero"`
	WaitReason string    `json:"wait_reason,omitempty"`
}
