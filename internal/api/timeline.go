package api

import (
	"time"

	"github.com/hookd/hookd/internal/delivery"
)

// attemptOut is one attempt as the API shows it: durations in
// milliseconds and words rather than Go's nanoseconds.
type attemptOut struct {
	Number      int              `json:"number"`
	Start       time.Time        `json:"start"`
	DurationMS  float64          `json:"duration_ms"`
	Status      int              `json:"status,omitempty"`
	ErrorClass  string           `json:"error_class,omitempty"`
	Error       string           `json:"error,omitempty"`
	Response    string           `json:"response,omitempty"`
	Outcome     delivery.Outcome `json:"outcome"`
	NextDelay   string           `json:"next_delay,omitempty"`
	DelayReason string           `json:"delay_reason,omitempty"`
	NextAttempt *time.Time       `json:"next_attempt_at,omitempty"`
}

func timelineOut(attempts []delivery.Attempt) []attemptOut {
	out := make([]attemptOut, 0, len(attempts))
	for _, a := range attempts {
		out = append(out, *attemptOf(a))
	}
	return out
}

func attemptOf(a delivery.Attempt) *attemptOut {
	o := &attemptOut{
		Number: a.Number, Start: a.Start, DurationMS: float64(a.Duration.Microseconds()) / 1000,
		Status: a.Status, ErrorClass: a.ErrorClass, Error: a.Error, Response: a.Response,
		Outcome: a.Outcome, DelayReason: a.DelayReason,
	}
	if a.NextDelay > 0 {
		o.NextDelay = a.NextDelay.Round(time.Millisecond).String()
	}
	if !a.NextAttempt.IsZero() {
		o.NextAttempt = &a.NextAttempt
	}
	return o
}

// Kinds of timeline entries.
const (
	kindAttempt = "attempt"
	kindRedrive = "redrive"
)

// timelineEntry is one entry of a delivery's timeline across runs: an
// attempt (its fields inline) or the redrive that started run Run.
type timelineEntry struct {
	Kind string `json:"kind"`
	Run  int    `json:"run"`
	*attemptOut
	Redrive *delivery.Redrive `json:"redrive,omitempty"`
}
