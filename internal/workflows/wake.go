package workflows

import (
	"cmp"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
)

// wakePagesPerRun bounds the pages one run of a wake-up makes before it
// continues as new (sooner if Temporal suggests it): each page is about
// ten history events, whatever its size.
const wakePagesPerRun = 100

// wakePageSize is how many deliveries one WakePage activity wakes.
const wakePageSize = 1000

// Wake wakes the deliveries waiting on one endpoint (its circuit closed,
// or an operator recovered or enabled it): one run per endpoint at a
// time, its ID delivery.WakeID, started by a signal-with-start that a
// second request joins. A pass lists the waiting deliveries oldest first
// and wakes them a page at a time (the WakePage activity: a backlog of up
// to req.Immediate signalled at once, a larger one paced with recover
// updates), continuing as new on a long backlog with its cursor. Then
// its second look: req.Settle after the pass's first list, if the
// endpoint still takes attempts, a pass wakes those visibility had not
// yet shown waiting. A request joined while a pass ran gets one more
// look. Being a workflow, it survives the process that asked for it.
func Wake(ctx workflow.Context, req delivery.WakeRequest) (delivery.WakeResult, error) {
	w := &waker{req: req, joins: workflow.GetSignalChannel(ctx, delivery.SignalWake), res: delivery.WakeResult{Woken: req.Woken, Looks: req.Look}}
	return w.run(ctx)
}

// waker is one run of a wake-up.
type waker struct {
	req   delivery.WakeRequest
	joins workflow.ReceiveChannel
	res   delivery.WakeResult
}

func (w *waker) run(ctx workflow.Context) (delivery.WakeResult, error) {
	cursor, again, pages := w.req.Cursor, w.req.Again, 0
	listed := w.req.Listed
	for {
		if cursor == nil {
			// A pass starts: the requests so far are what it lists for.
			w.drainJoins(ctx)
			listed = workflow.Now(ctx)
		}
		res, ok := w.page(ctx, cursor)
		w.res.Woken += res.Woken
		pages++
		again = w.drainJoins(ctx) || again
		if ok && res.More {
			cursor = res.Cursor
			if pages >= wakePagesPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
				next := w.req
				next.Cursor, next.Listed, next.Look, next.Again, next.Woken = cursor, listed, w.res.Looks, again, w.res.Woken
				return w.res, workflow.NewContinueAsNewError(ctx, delivery.WorkflowWake, next)
			}
			continue
		}
		cursor = nil
		// The pass is over: the second look, or one more for a request
		// joined while it ran; else the wake-up is done, unless a
		// request came as it was ending.
		if w.res.Looks > 0 && !again {
			if !w.drainJoins(ctx) {
				workflow.GetLogger(ctx).Info("woke waiting deliveries", "endpoint_id", w.req.EndpointID, "woken", w.res.Woken, "looks", w.res.Looks)
				return w.res, nil
			}
		}
		if err := w.settle(ctx, listed); err != nil {
			return w.res, err
		}
		w.drainJoins(ctx) // the look lists after them
		again = false
		w.res.Looks++
		if !w.takesAttempts(ctx) {
			// The endpoint opened or was switched off again: the
			// deliveries still waiting wait for its next change.
			workflow.GetLogger(ctx).Info("wake-up stopped: the endpoint holds attempts back", "endpoint_id", w.req.EndpointID, "woken", w.res.Woken)
			return w.res, nil
		}
	}
}

// drainJoins takes the requests joined so far and reports whether there
// were any.
func (w *waker) drainJoins(ctx workflow.Context) bool {
	joined := false
	var sig delivery.RecoverSignal
	for w.joins.ReceiveAsync(&sig) {
		joined = true
		workflow.GetLogger(ctx).Info("wake-up joined", "endpoint_id", w.req.EndpointID, "by", sig.By, "reason", sig.Reason)
	}
	return joined
}

// page wakes one page after cursor. ok is false if it failed for good;
// the pass then ends there, and what it did not reach tries again at the
// end of its own wait.
func (w *waker) page(ctx workflow.Context, cursor *delivery.WakeCursor) (delivery.WakePageResult, bool) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		// A page goes at the drain's pace: seconds, minutes if each
		// attempt takes its whole timeout. It heartbeats its progress,
		// so a worker that dies mid-page is noticed within the
		// heartbeat timeout and the page resumes after what was done.
		StartToCloseTimeout: time.Hour,
		HeartbeatTimeout:    20 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: 30 * time.Second, MaximumAttempts: 10},
	})
	in := delivery.WakePageInput{EndpointID: w.req.EndpointID, Signal: w.req.Signal, Cursor: cursor, Max: wakePageSize}
	if w.res.Looks == 0 {
		in.Immediate = w.req.Immediate // a second look's few are paced
	}
	var res delivery.WakePageResult
	if err := workflow.ExecuteActivity(actx, delivery.ActivityWakePage, in).Get(ctx, &res); err != nil {
		workflow.GetLogger(ctx).Warn("wake a page of waiting deliveries", "endpoint_id", w.req.EndpointID, "error", err)
		return res, false
	}
	return res, true
}

// settle waits until the settle time has passed since listed.
func (w *waker) settle(ctx workflow.Context, listed time.Time) error {
	d := listed.Add(cmp.Or(w.req.Settle, delivery.WakeSettle)).Sub(workflow.Now(ctx))
	if d <= 0 {
		return nil
	}
	return workflow.Sleep(ctx, d)
}

// takesAttempts asks whether the endpoint takes attempts now; one that
// cannot be told is looked at anyway (a look at an endpoint that holds
// attempts back only defers the deliveries again, sending nothing).
func (w *waker) takesAttempts(ctx workflow.Context) bool {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 3},
	})
	var takes bool
	if err := workflow.ExecuteActivity(actx, delivery.ActivityTakesAttempts, w.req.EndpointID).Get(ctx, &takes); err != nil {
		workflow.GetLogger(ctx).Warn("does the endpoint take attempts", "endpoint_id", w.req.EndpointID, "error", err)
		return true
	}
	return takes
}
