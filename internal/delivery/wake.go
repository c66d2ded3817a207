package delivery

import "time"

// Names of the wake-up workflow, its signal and its activities: one
// wake-up per endpoint at a time tells the deliveries waiting on it (its
// circuit open, its switch off) to try again now.
const (
	WorkflowWake = "Wake"
	// SignalWake joins a wake-up: a recover or an enable while one runs
	// asks it to look once more when it is done, instead of starting
	// another. Its argument is a RecoverSignal.
	SignalWake = "wake"

	ActivityWakePage      = "WakePage"
	ActivityTakesAttempts = "TakesAttempts"
)

// WakeRequest is the wake-up workflow's input.
type WakeRequest struct {
	EndpointID string `json:"endpoint_id"`
	// Signal says who woke the deliveries and why; its NotBefore is when
	// (the spread of a small backlog's slots starts there).
	Signal RecoverSignal `json:"signal"`
	// Immediate is the largest backlog signalled at once, each delivery
	// at its slot of a short spread; a larger one is woken with recover
	// updates as fast as it drains. Zero: always the updates.
	Immediate int `json:"immediate,omitempty"`
	// Settle is how long after a pass's first list the second look lists
	// again; zero means the wake package's default.
	Settle time.Duration `json:"settle,omitempty"`

	// Set when a wake-up continues as new: how far its pass got, when
	// the pass listed first, and whether it is the second look or a
	// joined request waits for one.
	Cursor *WakeCursor `json:"cursor,omitempty"`
	Listed time.Time   `json:"listed,omitzero"`
	Look   int         `json:"look,omitempty"`
	Again  bool        `json:"again,omitempty"`
	Woken  int         `json:"woken,omitempty"`
}

// WakeCursor is where a pass over an endpoint's waiting deliveries got
// to: the oldest first, each after (Started, WorkflowID) not yet woken.
type WakeCursor struct {
	Started    time.Time `json:"started"`
	WorkflowID string    `json:"workflow_id"`
}

// WakePageInput is the WakePage activity's input: wake up to Max of
// endpointID's waiting deliveries after Cursor, oldest first.
type WakePageInput struct {
	EndpointID string        `json:"endpoint_id"`
	Signal     RecoverSignal `json:"signal"`
	Cursor     *WakeCursor   `json:"cursor,omitempty"`
	Max        int           `json:"max"`
	// Immediate: see WakeRequest. Only a first page (no Cursor) signals.
	Immediate int `json:"immediate,omitempty"`
}

// WakePageResult is what a WakePage did: how many it woke, where the
// pass got to, and whether more wait after it.
type WakePageResult struct {
	Woken  int         `json:"woken"`
	Cursor *WakeCursor `json:"cursor,omitempty"`
	More   bool        `json:"more"`
}

// WakeResult is the wake-up workflow's result.
type WakeResult struct {
	Woken int `json:"woken"`
	Looks int `json:"looks"`
}

// WakeSettle is how long after a wake-up's first list its second look
// lists again: the first list misses a delivery deferred an instant
// before the change, since visibility does not yet show it waiting.
const WakeSettle = 5 * time.Second
