package workflows

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
)

// activitySlack is added to the HTTP timeout for an attempt's
// StartToClose, so an HTTP timeout is an ordinary retryable attempt that
// follows the schedule rather than an activity timeout.
const activitySlack = 10 * time.Second

// Delivery delivers one event to one endpoint. The first attempt runs as a
// local activity (six history events when it succeeds); if it fails
// retryably, a timer waits out the first delay and a regular activity makes
// the remaining attempts, retried by Temporal on the endpoint's schedule.
// An attempt the endpoint holds back (circuit open, endpoint disabled) is
// deferred: the run waits, then attempts again as a local activity
// (changeWakeAttempt). A delivery that fails permanently or exhausts the
// schedule is parked as a dead letter and the run fails with the final
// state as details.
func Delivery(ctx workflow.Context, req delivery.Request) (delivery.Result, error) {
	w := &run{req: req, state: delivery.Result{Status: delivery.StatusPending, Attempts: req.Resume}}
	if err := workflow.SetQueryHandler(ctx, delivery.QueryState, func() (delivery.Result, error) { return w.state, nil }); err != nil {
		return w.state, err
	}
	w.req.Timeout = delivery.AttemptTimeout(req.Timeout)
	res, err := w.deliver(w.onExpunge(ctx), req)
	if w.expunged {
		res, err = w.endExpunged(ctx)
	}
	// A recover update's handler still waiting for its attempt (the run
	// continues as new or ends first) completes before the run does.
	w.ending = true
	if aerr := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); aerr != nil && err == nil {
		err = aerr
	}
	return res, err
}

// deliver is the delivery run's body; see Delivery.
func (w *run) deliver(ctx workflow.Context, req delivery.Request) (delivery.Result, error) {
	if len(req.Resume) > 0 {
		return w.retry(ctx, 0, false) // continued as new: the first attempt is long done
	}

	first, err := w.localAttempt(ctx, delivery.ActivityFirstAttempt, req)
	if err != nil {
		// The attempt itself broke (worker timeout, panic): count it as a
		// retryable attempt on the schedule, without jitter.
		first = delivery.Attempt{Number: 1, Start: workflow.Now(ctx), Outcome: delivery.OutcomeRetryable, ErrorClass: delivery.ClassInternal, Error: "attempt did not complete"}
		if len(req.Schedule) > 0 {
			first.NextDelay, first.DelayReason = req.Schedule[0], delivery.DelaySchedule
		}
	}
	if w.expungedBy(ctx, first.Outcome) {
		return w.state, nil
	}
	if req.SingleAttempt {
		return w.once(ctx, first)
	}
	s := w.settle(ctx, first)
	if s.done {
		return w.state, s.err
	}
	return w.retry(ctx, s.wait, s.deferred)
}

// once ends a single-attempt delivery (Request.SingleAttempt: a test
// event) after its attempt: delivered, or failed with the attempt in its
// details, never retried, waited on or dead-lettered. An attempt the
// endpoint held back (its circuit opened, or it was disabled, after the
// test was asked for) ends it unsent, its wait reason kept to say why.
// Requests from before the field never set it, so their runs replay.
func (w *run) once(ctx workflow.Context, at delivery.Attempt) (delivery.Result, error) {
	if at.Outcome == delivery.OutcomeDeferred {
		w.state.WaitReason = at.DelayReason
	} else {
		at.NextDelay, at.DelayReason, at.NextAttempt = 0, "", time.Time{} // nothing follows
		w.state.Attempts = append(w.state.Attempts, at)
	}
	if at.Outcome == delivery.OutcomeSuccess {
		w.state.Status = delivery.StatusDelivered
		return w.state, nil
	}
	w.state.Status = delivery.StatusFailed
	w.setStatus(ctx, string(delivery.StatusFailed), "single attempt, not retried")
	return w.state, temporal.NewNonRetryableApplicationError("delivery failed (single attempt)", string(delivery.StatusFailed), nil, w.state)
}

// run is one delivery run's state.
type run struct {
	req    delivery.Request
	state  delivery.Result
	status string // the HookdStatus search attribute, once set
	// recovers carries accepted recover updates to the wait; waiting says
	// a wait that ends on recover is under way (updates are rejected
	// otherwise).
	recovers workflow.Channel
	waiting  bool
	// wokenByUpdate says the last wait was ended by a recover update;
	// attempts counts the attempt activities that have returned, which a
	// recover update's handler waits on (changeDurableWake); ending says
	// the run returns, so no handler waits any longer.
	wokenByUpdate, legacyUpdate bool
	attempts                    int
	ending                      bool
	// slot is the rate limit's slot the run waits for, if it does: its
	// wake-up attempt carries it (versionRateSlot).
	slot *delivery.Slot
	// expunged says the event was expunged (changeExpunge): the run
	// ends so, whatever its body returned.
	expunged bool
}

// maxHistory bounds a run's history in runs that predate
// changeBoundedWait, which continue as new only past it.
const maxHistory = 5000

// step is what one step of a run decided: the run is done (with the
// error to end it with), or it waits before trying again, deferred when
// the endpoint held the attempt back (nothing counted).
type step struct {
	wait     time.Duration
	deferred bool
	done     bool
	err      error
}

// retry goes on after the first attempt until the run is done: it waits,
// continues as new when its history asks for it, wakes up from a
// deferral (wakeUp) and otherwise makes the remaining attempts (retries).
func (w *run) retry(ctx workflow.Context, wait time.Duration, deferred bool) (delivery.Result, error) {
	for {
		if wait > 0 {
			if err := w.pause(ctx, wait); err != nil {
				return w.state, err
			}
		}
		w.state.WaitUntil, w.state.WaitReason = time.Time{}, "" // the wait is over
		if w.continueAsNew(ctx) {
			next := w.req
			next.Resume = w.state.Attempts
			return w.state, workflow.NewContinueAsNewError(ctx, delivery.WorkflowDelivery, next)
		}
		var (
			s     step
			woken bool
		)
		if deferred && w.boundedWait(ctx) {
			s, woken = w.wakeUp(ctx)
		}
		if !woken {
			s = w.retries(ctx)
		}
		if s.done {
			return w.state, s.err
		}
		wait, deferred = s.wait, s.deferred
	}
}

// wakeUp is a deferred delivery's wake-up (changeBoundedWait): an attempt
// in a local activity (changeWakeAttempt), deferred again while the
// endpoint still holds attempts back; or, if that attempt broke or the
// run predates it, the Admit activity's answer. woken is false when the
// delivery goes on to Retry: a retryable failure, or Admit let it
// attempt or could not tell.
func (w *run) wakeUp(ctx workflow.Context) (s step, woken bool) {
	if w.wakeLocally(ctx) {
		if err := w.recordWake(ctx); err != nil {
			return step{done: true, err: err}, true
		}
		in := delivery.RetryInput{Request: w.req, Prior: w.state.Attempts}
		if w.rateSlot(ctx) {
			in.Slot = w.slot
		}
		w.slot = nil
		at, err := w.localAttempt(ctx, delivery.ActivityWakeAttempt, in)
		if err == nil {
			return w.settle(ctx, at), true
		}
		workflow.GetLogger(ctx).Warn("wake-up attempt did not complete; retrying", "error", err)
	}
	if adm, ok := w.admit(ctx); ok && !adm.WaitUntil.IsZero() {
		w.waitFor(ctx, adm.WaitUntil, adm.WaitReason)
		return step{wait: adm.WaitUntil.Sub(workflow.Now(ctx)), deferred: true}, true
	}
	return step{}, false
}

// retries makes the remaining attempts in a regular activity that
// Temporal retries on the schedule. An attempt the endpoint's switch or
// circuit defers completes the activity without counting: the run then
// waits as told.
func (w *run) retries(ctx workflow.Context) step {
	remaining := w.req.Attempts() - len(w.state.Attempts)
	if remaining <= 0 {
		_, err := w.fail(ctx, delivery.StatusExhausted)
		return step{done: true, err: err}
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: w.req.Timeout + activitySlack,
		RetryPolicy: &temporal.RetryPolicy{
			// Used only when an attempt times out (a worker died
			// mid-attempt); every other retry sets its own delay.
			InitialInterval:    cmp.Or(firstOr(w.req.Schedule), delivery.MinRetryDelay),
			BackoffCoefficient: 2,
			MaximumInterval:    delivery.MaxRetryDelay,
			MaximumAttempts:    int32(remaining),
		},
	})
	var res delivery.Result
	err := workflow.ExecuteActivity(actx, delivery.ActivityRetry, delivery.RetryInput{Request: w.req, Prior: w.state.Attempts}).Get(ctx, &res)
	w.attempts++
	if err != nil {
		if timeline := timelineOf(err); len(timeline) > len(w.state.Attempts) {
			w.state.Attempts = timeline
		}
		status := delivery.StatusExhausted
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) && appErr.Type() == delivery.ErrTypePermanent {
			status = delivery.StatusFailed
		}
		if errors.As(err, &appErr) && appErr.Type() == delivery.ErrTypeExpunged && w.expungedBy(ctx, delivery.OutcomeExpunged) {
			return step{done: true}
		}
		_, err = w.fail(ctx, status)
		return step{done: true, err: err}
	}
	if len(res.Attempts) > len(w.state.Attempts) {
		w.state.Attempts = res.Attempts
	}
	if res.Status == delivery.StatusDelivered {
		w.state.Status, w.state.WaitUntil, w.state.WaitReason = delivery.StatusDelivered, time.Time{}, ""
		w.setStatus(ctx, string(delivery.StatusDelivered), "")
		return step{done: true, err: w.recovered(ctx)}
	}
	w.waitFor(ctx, res.WaitUntil, res.WaitReason)
	w.slot = res.Slot
	return step{wait: res.WaitUntil.Sub(workflow.Now(ctx)), deferred: true}
}

// localAttempt makes one attempt as a local activity: no task-queue trip
// and one marker event. It is tried once; the workflow decides what
// follows from the outcome it reports.
func (w *run) localAttempt(ctx workflow.Context, activity string, in any) (delivery.Attempt, error) {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: w.req.Timeout + activitySlack,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	var at delivery.Attempt
	err := workflow.ExecuteLocalActivity(lctx, activity, in).Get(ctx, &at)
	w.attempts++
	return at, err
}

// recordWake ends the workflow task before a wake-up attempt when a
// recover update ended the wait (changeDurableWake): the attempt then
// runs in a task of its own, after the update's acceptance is written.
func (w *run) recordWake(ctx workflow.Context) error {
	if !w.wokenByUpdate || w.legacyUpdate {
		return nil
	}
	w.wokenByUpdate = false
	return workflow.NewTimerWithOptions(ctx, durableWakeTimer, workflow.TimerOptions{Summary: "record the recover update before attempting"}).Get(ctx, nil)
}

// settle applies the outcome of a local attempt (delivery.Judge).
func (w *run) settle(ctx workflow.Context, at delivery.Attempt) step {
	verdict := delivery.Judge(at, w.req.Attempts())
	if verdict == delivery.VerdictExpunged {
		if w.expungedBy(ctx, at.Outcome) {
			return step{done: true}
		}
		verdict = delivery.VerdictFailed // a run from before changeExpunge
	}
	if verdict == delivery.VerdictWait {
		w.waitFor(ctx, at.NextAttempt, at.DelayReason)
		w.slot = at.Slot
		return step{wait: at.NextAttempt.Sub(workflow.Now(ctx)), deferred: true}
	}
	w.state.Attempts = append(w.state.Attempts, at)
	switch verdict {
	case delivery.VerdictDelivered:
		w.state.Status = delivery.StatusDelivered
		if w.status != "" { // off the happy path the search attribute said otherwise
			w.setStatus(ctx, string(delivery.StatusDelivered), "")
		}
		return step{done: true, err: w.recovered(ctx)}
	case delivery.VerdictFailed:
		_, err := w.fail(ctx, delivery.StatusFailed)
		return step{done: true, err: err}
	case delivery.VerdictExhausted:
		_, err := w.fail(ctx, delivery.StatusExhausted)
		return step{done: true, err: err}
	}
	w.setStatus(ctx, delivery.SearchStatusRetrying, "after attempt "+strconv.Itoa(at.Number)+": "+at.ErrorClass)
	return step{wait: at.NextDelay}
}

// continueAsNew reports whether the run should continue as new before it
// waits any longer.
func (w *run) continueAsNew(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	if info.GetCurrentHistoryLength() > maxHistory {
		return true
	}
	return info.GetContinueAsNewSuggested() && w.boundedWait(ctx)
}

// admit asks whether the endpoint of a deferred delivery takes attempts
// again. ok is false if the question could not be answered; Retry, which
// gates every attempt itself, then finds out.
func (w *run) admit(ctx workflow.Context) (adm delivery.Admission, ok bool) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 3},
	})
	in := delivery.AdmitInput{DeliveryID: w.req.DeliveryID, EndpointID: w.req.EndpointID, Redrive: w.req.Redrive != nil}
	err := workflow.ExecuteActivity(actx, delivery.ActivityAdmit, in).Get(ctx, &adm)
	w.attempts++
	if err != nil {
		workflow.GetLogger(ctx).Warn("admission check failed; attempting", "error", err)
		return delivery.Admission{}, false
	}
	return adm, true
}

// waitFor records that the delivery waits until the given time.
func (w *run) waitFor(ctx workflow.Context, until time.Time, reason string) {
	w.state.WaitUntil, w.state.WaitReason = until, reason
	w.setStatus(ctx, delivery.SearchStatusWaiting, reason)
}

// pause waits d before the next attempt. A deferral's wait (the state
// holds its reason: the endpoint's circuit is open or its switch off) ends
// early when an operator recovers the endpoint; a wait on the retry
// schedule does not.
func (w *run) pause(ctx workflow.Context, d time.Duration) error {
	if w.state.WaitUntil.IsZero() {
		return workflow.Sleep(ctx, d)
	}
	if !w.recoverEndsWait(ctx) {
		return workflow.Sleep(ctx, d)
	}
	return w.untilRecovered(ctx, d)
}

// untilRecovered waits d, or until a recover signal or update says to try
// again: at once, or at its NotBefore if that comes sooner. A recover that
// arrived before this wait began concerned an earlier one and is dropped.
func (w *run) untilRecovered(ctx workflow.Context, d time.Duration) error {
	recovers := workflow.GetSignalChannel(ctx, delivery.SignalRecover)
	for recovers.ReceiveAsync(nil) {
	}
	updates, err := w.recoverUpdates(ctx)
	if err != nil {
		return err
	}
	for updates.ReceiveAsync(nil) { // accepted as an earlier wait ended
	}
	w.waiting, w.wokenByUpdate = true, false
	defer func() { w.waiting = false }()
	deadline := workflow.Now(ctx).Add(d)
	tctx, cancel := workflow.WithCancel(ctx)
	defer func() { cancel() }()
	timer := workflow.NewTimer(tctx, d)
	for {
		var (
			sig       delivery.RecoverSignal
			recovered bool
			err       error
		)
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(timer, func(f workflow.Future) { err = f.Get(ctx, nil) })
		sel.AddReceive(recovers, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &sig); recovered = true })
		sel.AddReceive(updates, func(c workflow.ReceiveChannel, _ bool) {
			c.Receive(ctx, &sig)
			recovered, w.wokenByUpdate = true, true
		})
		sel.Select(ctx)
		if !recovered {
			return err
		}
		workflow.GetLogger(ctx).Info("wait ended by recover", "delivery_id", w.req.DeliveryID, "by", sig.By, "reason", sig.Reason)
		workflow.SetCurrentDetails(ctx, strings.TrimSpace("endpoint recovered by "+cmp.Or(sig.By, "temporal signal")+" "+sig.Reason))
		if !sig.NotBefore.Before(deadline) {
			continue // the wait ends sooner anyway
		}
		cancel()
		now := workflow.Now(ctx)
		if !sig.NotBefore.After(now) {
			return nil
		}
		deadline = sig.NotBefore
		tctx, cancel = workflow.WithCancel(ctx)
		timer = workflow.NewTimer(tctx, deadline.Sub(now))
	}
}

// errNotWaiting rejects a recover update that finds the delivery not
// waiting (attempting, or about to end): a rejected update leaves nothing
// in the history.
var errNotWaiting = temporal.NewApplicationError("the delivery is not waiting", delivery.ErrTypeNotWaiting)

// recoverUpdates registers, once per run, the handler of the recover
// update, and returns the channel it hands accepted updates to. A run
// that never waits registers nothing, and the handler writes no command,
// so runs recorded before it replay unchanged.
func (w *run) recoverUpdates(ctx workflow.Context) (workflow.ReceiveChannel, error) {
	if w.recovers != nil {
		return w.recovers, nil
	}
	ch := workflow.NewBufferedChannel(ctx, 16)
	err := workflow.SetUpdateHandlerWithOptions(ctx, delivery.UpdateRecover,
		func(ctx workflow.Context, sig delivery.RecoverSignal) error {
			ch.SendAsync(sig) // a full buffer means the wait already ends
			if !w.durableWake(ctx) {
				w.legacyUpdate = true
				return nil // completed with the task that makes the attempt
			}
			// Done once the woken delivery's attempt returned, so a
			// wake-up waiting on it goes as fast as the deliveries drain.
			n := w.attempts
			return workflow.Await(ctx, func() bool { return w.attempts > n || w.ending })
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, _ delivery.RecoverSignal) error {
			if !w.waiting {
				return errNotWaiting
			}
			return nil
		}})
	if err != nil {
		return nil, fmt.Errorf("recover update handler: %w", err)
	}
	w.recovers = ch
	return ch, nil
}

func firstOr(s []time.Duration) time.Duration {
	if len(s) == 0 {
		return 0
	}
	return s[0]
}

// timelineOf recovers the attempts carried by the Retry activity's final
// error: its details, or the last heartbeat if the attempt timed out.
func timelineOf(err error) []delivery.Attempt {
	var (
		timeline []delivery.Attempt
		appErr   *temporal.ApplicationError
		toErr    *temporal.TimeoutError
	)
	switch {
	case errors.As(err, &appErr) && appErr.HasDetails():
		_ = appErr.Details(&timeline)
	case errors.As(err, &toErr) && toErr.HasLastHeartbeatDetails():
		_ = toErr.LastHeartbeatDetails(&timeline)
	}
	return timeline
}

// fail parks the delivery as a dead letter and fails the run with the
// final state as the error's details.
func (w *run) fail(ctx workflow.Context, status delivery.Status) (delivery.Result, error) {
	w.state.Status = status
	w.setStatus(ctx, string(status), "dead-lettered")
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		// No maximum: the dead letter must be parked, however long the
		// Temporal frontend takes to come back.
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	dl := delivery.DeadLetter{Request: w.req, Reason: status, Attempts: w.state.Attempts, DeadAt: workflow.Now(ctx)}
	dl.Request.Resume = nil
	if err := workflow.ExecuteActivity(actx, delivery.ActivityDeadLetter, dl).Get(ctx, nil); err != nil {
		return w.state, err
	}
	return w.state, temporal.NewNonRetryableApplicationError("delivery "+string(status), string(status), nil, w.state)
}

// recovered announces a delivery delivered after failing (a failed
// attempt before the last in this run, or a redriven run) through the
// DeliveryRecovered activity (changeRecoveredEvent), retried until the
// event is recorded. A delivery delivered at once, or whose transitions
// are not announced (delivery.Request.Quiet), runs nothing.
func (w *run) recovered(ctx workflow.Context) error {
	if w.req.Quiet() || (len(w.state.Attempts) < 2 && w.req.Redrive == nil) || !w.announcesRecovery(ctx) {
		return nil
	}
	last := w.state.Last()
	in := delivery.Recovered{Request: w.req, Attempts: len(w.state.Attempts), Status: last.Status, At: last.Start.Add(last.Duration)}
	in.Request.Body, in.Request.Resume = "", nil // the event says which delivery, not what it carried
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	return workflow.ExecuteActivity(actx, delivery.ActivityRecovered, in).Get(ctx, nil)
}

// setStatus records the delivery's status as a search attribute when it
// changes, and a readable line in the Web UI's current details. It is only
// called off the happy path, where one more history event is affordable.
func (w *run) setStatus(ctx workflow.Context, status, detail string) {
	workflow.SetCurrentDetails(ctx, strings.TrimSpace(status+" "+detail))
	if status == w.status {
		return
	}
	w.status = status
	if err := workflow.UpsertTypedSearchAttributes(ctx, delivery.AttrStatus.ValueSet(status)); err != nil {
		workflow.GetLogger(ctx).Warn("upsert status", "error", err)
	}
}
