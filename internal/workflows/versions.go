package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// Every workflow.GetVersion change ID of the Delivery workflow, what it
// changed, which recorded histories need its old shape, and when it can
// be retired. A change's DefaultVersion branch can go once no run that
// took it can still be replayed: the namespace retention (the dedup
// window, docs/operations.md) has passed since the last release that
// started runs on the old shape, and no such run is still open (a
// delivery parked behind an endpoint can run for days, across
// continue-as-new, which carries no version). Retiring means: keep the
// GetVersion call with minSupported raised to 1 (so a stray old run
// fails its task loudly instead of replaying wrong), drop the old
// branch, and move its testdata histories out of TestReplay's list.
//
// The wake-up changes nest: changeWakeAttempt implies changeBoundedWait
// and changeRecover, so a run asks for changeWakeAttempt first and
// records only its marker; the two older IDs are asked only by runs that
// recorded no changeWakeAttempt marker (they predate it).

// changeRecover versions the wait of a deferred delivery: from version 1
// on, a recover signal ends it early. Old shape: delivery-circuit-open-v0
// (and the -v0 histories below). Implied by changeWakeAttempt.
const changeRecover = "recover-ends-wait"

// changeBoundedWait versions how a waiting delivery keeps its history
// bounded: each wake-up of a deferred delivery asks the Admit activity,
// whose input carries no body, before it schedules Retry; and the run
// continues as new when Temporal suggests it (history size or length).
// Runs started before it re-ran Retry, body and all, on every wake-up.
// Old shape: delivery-deferred-v0, delivery-recovered-v0,
// delivery-circuit-open-v0. Version 1: delivery-deferred,
// delivery-continued(-last), delivery-recovered. Implied by
// changeWakeAttempt.
const changeBoundedWait = "bounded-wait"

// changeWakeAttempt versions how a deferred delivery wakes up: from
// version 1 on, it attempts at once in a local activity (WakeAttempt),
// which is deferred again while the endpoint still holds attempts back;
// only a retryable failure goes on to Retry and the schedule. Runs
// started before asked Admit, then scheduled Retry through the task
// queue: two activities' events and trips per wake-up, which made
// draining a backlog several times dearer than delivering afresh. Old
// shape: every history without a wake-attempt marker that waits (the
// three above). Version 1: delivery-wake, delivery-wake-retry,
// delivery-wake-recovered, delivery-wake-updated, delivery-wake-durable.
const changeWakeAttempt = "wake-attempt"

// versionRateSlot is changeWakeAttempt's version 2: the wake-up attempt
// of a delivery that waited for its rate limit's slot carries that slot
// (RetryInput.Slot), so it goes in the slot it reserved instead of
// reserving another at the back of the queue. A version of the wake-up's
// change rather than a change of its own, because a change ID is one
// more marker and search-attribute upsert on every throttled delivery,
// where the wake-up's marker is written anyway. Runs at version 1 wake
// without the slot (they reserve again); nothing else differs, so no
// command changes between the two. Version 2: delivery-rate-limit.
const versionRateSlot = 2

// changeDurableWake versions how a recover update wakes a deferred
// delivery. From version 1 on its handler only ends the wait and then
// waits for the woken delivery's attempt, and the run ends the workflow
// task that accepted the update (a timer of a millisecond) before it
// attempts: the update's acceptance is in the history before anything is
// sent. At DefaultVersion the handler completes at once and the attempt
// runs as a local activity inside the update's speculative workflow task:
// a server that aborts that task (as many concurrent recovers make it do)
// leaves an attempt sent and recorded nowhere, and the next update sends
// it again. Asked in the update's handler, so only by runs woken by an
// update. Old shape: delivery-wake-updated. Version 1:
// delivery-wake-durable. Runs waiting when it shipped take version 1 at
// their next update (no old-shape marker is ever written for it), so it
// can be retired as soon as the retention has passed since the last
// release without it.
const changeDurableWake = "durable-wake"

// changeRecoveredEvent versions the announcement of a delivery
// delivered after failing (a failed attempt before it in the run, or a
// redriven run): from version 1 on the run then makes the
// DeliveryRecovered activity, which emits hookd.delivery.recovered,
// before it completes. Asked only then, so a delivery delivered at once
// (the happy path) records no marker. Old shape: delivery-retry-success,
// delivery-redriven-success, delivery-wake-retry. Version 1:
// delivery-recovered-event.
const changeRecoveredEvent = "recovered-event"

// durableWakeTimer is the task boundary between a recover update's
// acceptance and the attempt it wakes.
const durableWakeTimer = time.Millisecond

// wakeLocally reports whether the run follows changeWakeAttempt. Each
// version marker comes with an upsert of the TemporalChangeVersion search
// attribute, one more history event and visibility write, so it is asked
// only off the happy path, from a delivery's first deferral on.
func (w *run) wakeLocally(ctx workflow.Context) bool {
	return w.wakeVersion(ctx) >= 1
}

// wakeVersion is the run's version of changeWakeAttempt.
func (w *run) wakeVersion(ctx workflow.Context) workflow.Version {
	return workflow.GetVersion(ctx, changeWakeAttempt, workflow.DefaultVersion, versionRateSlot)
}

// rateSlot reports whether the run's wake-up attempt carries the slot it
// waited for (versionRateSlot).
func (w *run) rateSlot(ctx workflow.Context) bool {
	return w.wakeVersion(ctx) >= versionRateSlot
}

// boundedWait reports whether the run follows changeBoundedWait: implied
// by changeWakeAttempt, asked of older runs only. It is asked only off the
// happy path (a deferral, a suggestion to continue as new), so a delivery
// that never waits records no version marker.
func (w *run) boundedWait(ctx workflow.Context) bool {
	return w.wakeLocally(ctx) || workflow.GetVersion(ctx, changeBoundedWait, workflow.DefaultVersion, 1) >= 1
}

// recoverEndsWait reports whether a deferral's wait ends on a recover
// (changeRecover): implied by changeWakeAttempt, asked of older runs only.
func (w *run) recoverEndsWait(ctx workflow.Context) bool {
	return w.wakeLocally(ctx) || workflow.GetVersion(ctx, changeRecover, workflow.DefaultVersion, 1) >= 1
}

// announcesRecovery reports whether the run follows
// changeRecoveredEvent; asked once the delivery is delivered after
// failing.
func (w *run) announcesRecovery(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeRecoveredEvent, workflow.DefaultVersion, 1) >= 1
}

// durableWake reports whether a recover update follows
// changeDurableWake; asked in the update's handler.
func (w *run) durableWake(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeDurableWake, workflow.DefaultVersion, 1) >= 1
}

// changeExpunge versions how a delivery ends once its event is
// expunged: from version 1 on, the expunge signal cancels whatever the
// run waits on, and an attempt that finds the event's key gone
// (OutcomeExpunged, or the Retry activity's ErrTypeExpunged) ends it;
// the run then fails as expunged (HookdStatus expunged) without a dead
// letter. Asked only then, so a delivery never expunged records no
// marker. At DefaultVersion (a history with the signal but no marker,
// recorded by a worker that ignored it) the signal changes nothing and
// an expunged attempt counts as a permanent failure. Old shape: every
// history without the marker. Version 1: delivery-expunged-waiting,
// delivery-expunged-attempt, and delivery-expunged-old (a delivery
// started before it, its body in its input as it is, takes version 1 at
// the signal).
const changeExpunge = "expunge"
