package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
)

// DeadLetter holds one dead delivery until an operator redrives it or its
// retention ends. Its entry arrives by the dead-letter signal (the workflow
// is signal-with-started); a redrive signal, from hookd's API, its CLI or
// `temporal workflow signal --name redrive`, starts a fresh run of the
// delivery with the same delivery ID and a new attempt budget.
func DeadLetter(ctx workflow.Context, p delivery.DeadLetterParams) (delivery.DeadLetterOutcome, error) {
	var entry delivery.DeadLetter
	if err := workflow.SetQueryHandler(ctx, delivery.QueryEntry, func() (delivery.DeadLetter, error) { return entry, nil }); err != nil {
		return delivery.DeadLetterOutcome{}, err
	}
	entries := workflow.GetSignalChannel(ctx, delivery.SignalDeadLetter)
	redrives := workflow.GetSignalChannel(ctx, delivery.SignalRedrive)
	entries.Receive(ctx, &entry)
	workflow.SetCurrentDetails(ctx, "waiting for redrive: "+string(entry.Reason))

	retention := p.Retention
	if retention <= 0 {
		retention = 30 * 24 * time.Hour
	}
	for {
		// Each entry gets the whole retention, including one whose
		// redriven run died again.
		tctx, cancelExpiry := workflow.WithCancel(ctx)
		expiry := workflow.NewTimer(tctx, retention)
		var (
			sig               delivery.RedriveSignal
			redriven, expired bool
		)
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(redrives, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &sig); redriven = true })
		sel.AddFuture(expiry, func(workflow.Future) { expired = true })
		// A later dead-letter signal (the delivery died again) replaces the entry.
		sel.AddReceive(entries, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &entry) })
		for !redriven && !expired {
			sel.Select(ctx)
		}
		if expired {
			workflow.GetLogger(ctx).Warn("dead letter expired without redrive", "delivery_id", entry.Request.DeliveryID)
			return delivery.DeadLetterOutcome{Outcome: "expired", At: workflow.Now(ctx)}, nil
		}
		out, err := redrive(ctx, entry, sig)
		if err != nil || !entries.ReceiveAsync(&entry) {
			return out, err
		}
		// The redriven run died again before this run closed: keep waiting.
		cancelExpiry()
		workflow.SetCurrentDetails(ctx, "waiting for redrive: "+string(entry.Reason))
	}
}

// redrive starts the delivery's fresh run and ends the dead letter.
func redrive(ctx workflow.Context, entry delivery.DeadLetter, sig delivery.RedriveSignal) (delivery.DeadLetterOutcome, error) {
	rd := &delivery.Redrive{By: sig.By, Reason: sig.Reason, At: workflow.Now(ctx)}
	if rd.By == "" {
		rd.By = "temporal signal"
	}
	req := entry.Request
	req.Redrive = rd
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	if err := workflow.ExecuteActivity(actx, delivery.ActivityRedrive, req).Get(ctx, nil); err != nil {
		return delivery.DeadLetterOutcome{}, err
	}
	return delivery.DeadLetterOutcome{Outcome: "redriven", Redrive: rd, At: rd.At}, nil
}
