package wake

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/hookd/hookd/internal/delivery"
)

// Updater is what a paced wake-up uses of Temporal (client.Client).
type Updater interface {
	Temporal
	UpdateWorkflow(ctx context.Context, options client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error)
}

// InFlight is how many recover updates a paced wake-up has outstanding:
// each is a woken delivery that has not yet made its attempt.
const InFlight = 16

// Paced wakes every delivery of endpointID that waits, oldest first, with
// the recover update, InFlight at a time, and returns how many it woke.
// An update completes once its delivery has made its attempt, so the
// wake-up runs as fast as the woken deliveries drain and never piles up
// woken deliveries faster than the workers serve them (woken ahead of the
// drain, a large backlog drains several times slower:
// docs/performance.md). An update is also cheaper than a signal:
// its workflow task is speculative, written only with the attempt's
// outcome. A delivery that ended or stopped waiting meanwhile is skipped.
// A server that refuses updates gets signals instead; any other failure
// stops the wake-up, with the count so far.
func Paced(ctx context.Context, c Updater, endpointID string, sig delivery.RecoverSignal) (int, error) {
	waiting, err := List(ctx, c, endpointID)
	if err != nil {
		return 0, err
	}
	return waiting.Pace(ctx, c, sig, nil)
}

// Pace wakes every delivery of the backlog with the recover update, in
// order, InFlight at a time, and returns how many it woke; see Paced.
// progress, if set, is told each time the deliveries done (woken or
// skipped) from the first on grow, with how many.
func (b Backlog) Pace(ctx context.Context, c Updater, sig delivery.RecoverSignal, progress func(done int)) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next, woken atomic.Int64
		wg          sync.WaitGroup
		once        sync.Once
		failed      error
		mu          sync.Mutex
		finished    = make([]bool, len(b))
		prefix      int
	)
	markDone := func(i int) {
		mu.Lock()
		defer mu.Unlock()
		finished[i] = true
		grew := false
		for prefix < len(b) && finished[prefix] {
			prefix, grew = prefix+1, true
		}
		if grew && progress != nil {
			progress(prefix)
		}
	}
	for range min(InFlight, len(b)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(b) || ctx.Err() != nil {
					return
				}
				ok, err := recoverOne(ctx, c, b[i], sig)
				if err != nil {
					once.Do(func() { failed = err })
					cancel()
					return
				}
				if ok {
					woken.Add(1)
				}
				markDone(i)
			}
		})
	}
	wg.Wait()
	return int(woken.Load()), failed
}

// recoverOne sends r the recover update and waits for its outcome: true
// if the delivery was woken, false if it had ended or was not waiting.
func recoverOne(ctx context.Context, c Updater, r run, sig delivery.RecoverSignal) (bool, error) {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: r.workflowID, RunID: r.runID, UpdateName: delivery.UpdateRecover,
		Args: []any{sig}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if refused(err) {
		err = c.SignalWorkflow(ctx, r.workflowID, r.runID, delivery.SignalRecover, sig)
	} else if err == nil {
		err = h.Get(ctx, nil)
	}
	var (
		nf     *serviceerror.NotFound
		reject *temporal.ApplicationError
	)
	switch {
	case errors.As(err, &nf), errors.As(err, &reject):
		// Ended meanwhile, or declined: not waiting, or a run whose code
		// predates the update.
		return false, nil
	case err != nil:
		return false, fmt.Errorf("recover %s: %w", r.workflowID, err)
	}
	return true, nil
}

// refused reports whether err says the server does not take updates
// (frontend.enableUpdateWorkflowExecution off).
func refused(err error) bool {
	var (
		pd *serviceerror.PermissionDenied
		un *serviceerror.Unimplemented
	)
	return errors.As(err, &pd) || errors.As(err, &un)
}
