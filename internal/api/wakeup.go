package api

import (
	"context"
	"fmt"
	"time"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/wake"
)

// wakeOut is how a wake-up of an endpoint's waiting deliveries was asked
// for: how many wait, all to be woken within Spread, or Paced at the
// drain's pace.
type wakeOut struct {
	Woken  int
	Spread time.Duration
	Paced  bool
}

// waker is the API's wake-up of waiting deliveries, the one the
// activities use too.
func (s *Server) waker() *wake.Waker {
	return wake.NewWaker(s.temporal, s.recoverImmediate, s.wakeSettle)
}

// wakeBacklog tells endpointID's waiting deliveries, with sig, to try
// again now (a recover, or the endpoint enabled again): it starts the
// endpoint's wake-up workflow, or joins the one running (wake.Waker). It
// returns once Temporal holds the request, so the wake-up survives this
// process. The wake-up signals a backlog of up to s.recoverImmediate,
// each delivery at its slot of a short spread after at, and wakes a
// larger one with recover updates as fast as it drains, then takes a
// second look if the endpoint still takes attempts.
func (s *Server) wakeBacklog(ctx context.Context, endpointID string, sig delivery.RecoverSignal, at time.Time) (wakeOut, error) {
	w := s.waker()
	n, err := w.Count(ctx, endpointID)
	if err != nil {
		return wakeOut{}, fmt.Errorf("%w: %w", errUnavailable, err)
	}
	sig.NotBefore = at
	if err := w.Wake(ctx, endpointID, sig); err != nil {
		return wakeOut{}, fmt.Errorf("%w: %w", errUnavailable, err)
	}
	if n > w.Immediate() {
		return wakeOut{Woken: n, Paced: true}, nil
	}
	return wakeOut{Woken: n, Spread: wake.Spread(n)}, nil
}
