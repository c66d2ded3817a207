package api

import (
	"time"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
)

// attemptOf is one attempt as the API shows it: durations in
// milliseconds and words rather than Go's nanoseconds.
func attemptOf(a delivery.Attempt) wire.Attempt {
	o := wire.Attempt{
		Number: a.Number, Start: a.Start, DurationMS: float64(a.Duration.Microseconds()) / 1000,
		Status: a.Status, ErrorClass: a.ErrorClass, Error: a.Error, Response: a.Response,
		Outcome: wire.AttemptOutcome(a.Outcome), DelayReason: a.DelayReason, NextAttemptAt: a.NextAttempt,
	}
	if a.NextDelay > 0 {
		o.NextDelay = a.NextDelay.Round(time.Millisecond).String()
	}
	return o
}

func timelineOut(attempts []delivery.Attempt) []wire.Attempt { return listOf(attempts, attemptOf) }

// Kinds of timeline entries.
const (
	kindAttempt = wire.TimelineEntryKindAttempt
	kindRedrive = wire.TimelineEntryKindRedrive
)

// attemptEntry is attempt a of run as an entry of a delivery's timeline
// across runs.
func attemptEntry(run int, a delivery.Attempt) wire.TimelineEntry {
	o := attemptOf(a)
	return wire.TimelineEntry{
		Kind: kindAttempt, Run: run, Number: o.Number, Start: o.Start, DurationMS: &o.DurationMS,
		Status: o.Status, ErrorClass: o.ErrorClass, Error: o.Error, Response: o.Response,
		Outcome: wire.TimelineEntryOutcome(o.Outcome), NextDelay: o.NextDelay, DelayReason: o.DelayReason, NextAttemptAt: o.NextAttemptAt,
	}
}

// redriveEntry is the redrive r that started run as an entry of a
// delivery's timeline.
func redriveEntry(run int, r *delivery.Redrive) wire.TimelineEntry {
	return wire.TimelineEntry{Kind: kindRedrive, Run: run, Redrive: redriveOut(r)}
}

// redriveOut is who redrove a delivery, why and when; zero for none.
func redriveOut(r *delivery.Redrive) wire.Redrive {
	if r == nil {
		return wire.Redrive{}
	}
	return wire.Redrive{By: r.By, Reason: r.Reason, At: r.At}
}
