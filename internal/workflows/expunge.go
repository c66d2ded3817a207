package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
)

// onExpunge returns ctx made cancellable by the expunge signal: a
// goroutine waits for it and, once the run follows changeExpunge, marks
// the run expunged and cancels whatever it waits on (a timer, an
// attempt, Temporal's retry of one). The goroutine writes no command
// until the signal comes, so runs that never get one replay unchanged.
func (w *run) onExpunge(ctx workflow.Context) workflow.Context {
	ctx, cancel := workflow.WithCancel(ctx)
	workflow.Go(ctx, func(gctx workflow.Context) {
		workflow.GetSignalChannel(gctx, delivery.SignalExpunge).Receive(gctx, nil)
		if w.expungedBy(gctx, delivery.OutcomeExpunged) {
			cancel()
		}
	})
	return ctx
}

// expungedBy reports whether an attempt's outcome (or the expunge
// signal, as OutcomeExpunged) ends the run expunged: it does once the run
// follows changeExpunge, which is asked only then.
func (w *run) expungedBy(ctx workflow.Context, outcome delivery.Outcome) bool {
	if outcome != delivery.OutcomeExpunged || w.expunged {
		return w.expunged
	}
	w.expunged = workflow.GetVersion(ctx, changeExpunge, workflow.DefaultVersion, 1) >= 1
	return w.expunged
}

// endExpunged ends an expunged run: a delivery delivered before the
// expunge stays delivered; any other fails as expunged (its status search
// attribute says so), with no dead letter. It runs on a context the
// expunge did not cancel.
func (w *run) endExpunged(ctx workflow.Context) (delivery.Result, error) {
	if w.state.Status == delivery.StatusDelivered {
		return w.state, nil
	}
	w.state.Status, w.state.WaitUntil, w.state.WaitReason, w.state.Slot = delivery.StatusExpunged, time.Time{}, "", nil
	w.setStatus(ctx, string(delivery.StatusExpunged), "event expunged, not attempted again")
	return w.state, temporal.NewNonRetryableApplicationError("delivery expunged", string(delivery.StatusExpunged), nil, w.state)
}
