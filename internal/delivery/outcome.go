package delivery

// Verdict is what one attempt's outcome means for its delivery.
type Verdict int

// Verdicts.
const (
	// VerdictWait: deferred by the endpoint; nothing was sent, nothing
	// counts, and the delivery waits as the attempt said.
	VerdictWait Verdict = iota
	VerdictDelivered
	// VerdictFailed: a permanent failure; the delivery is dead-lettered.
	VerdictFailed
	// VerdictExhausted: a retryable failure with no attempt left.
	VerdictExhausted
	// VerdictRetry: a retryable failure; the next attempt follows after
	// the attempt's NextDelay.
	VerdictRetry
	// VerdictExpunged: the event was expunged; the delivery ends so,
	// without a dead letter.
	VerdictExpunged
)

// Judge says what attempt at means for a delivery allowed attempts in
// all: the one reading the Retry activity and the Delivery workflow
// share. A pure function of the attempt's outcome and number.
func Judge(at Attempt, attempts int) Verdict {
	switch {
	case at.Outcome == OutcomeDeferred:
		return VerdictWait
	case at.Outcome == OutcomeExpunged:
		return VerdictExpunged
	case at.Outcome == OutcomeSuccess:
		return VerdictDelivered
	case at.Outcome == OutcomePermanent:
		return VerdictFailed
	case at.Number >= attempts:
		return VerdictExhausted
	}
	return VerdictRetry
}
