package api

import (
	"context"
	"time"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/wake"
)

// wakeOut is how a wake-up of an endpoint's waiting deliveries went: how
// many were told to try again, all within Spread, or Paced in the
// background.
type wakeOut struct {
	Woken  int
	Spread time.Duration
	Paced  bool
}

// wakeBound bounds a wake-up's background work: past it the deliveries it
// has not reached wake at the end of their own waits (an hour at most).
const wakeBound = time.Hour

// wakeBacklog tells endpointID's waiting deliveries, with sig, to try
// again now (a recover, or the endpoint enabled again). Up to
// s.recoverImmediate are signalled before it returns, each at its slot of
// a short spread after at; a larger backlog is woken in the background
// with recover updates as fast as it drains (wake.Backlog.Pace), so that
// 100,000 woken at once do not crowd out their own attempts. Either way,
// it then takes a second look in the background (wake.Again), if the
// endpoint still takes attempts. The background work outlives the
// request, not the process: a delivery it does not reach tries again at
// the end of its own wait.
func (s *Server) wakeBacklog(ctx context.Context, endpointID string, sig delivery.RecoverSignal, at time.Time) (wakeOut, error) {
	listed := time.Now()
	waiting, err := wake.List(ctx, s.temporal, endpointID)
	if err != nil {
		return wakeOut{}, fromTemporal(err, "list waiting deliveries", "")
	}
	out := wakeOut{Woken: len(waiting), Paced: true}
	if len(waiting) <= s.recoverImmediate {
		n, err := waiting.Signal(ctx, s.temporal, sig, at)
		out = wakeOut{Woken: n, Spread: wake.Spread(n)}
		if err != nil {
			return out, fromTemporal(err, "wake waiting deliveries", "")
		}
		waiting = nil
	}
	go s.wakeRest(endpointID, waiting, sig, listed)
	return out, nil
}

// wakeRest paces backlog (nil once signalled), then looks again for the
// deliveries the first list missed.
func (s *Server) wakeRest(endpointID string, backlog wake.Backlog, sig delivery.RecoverSignal, listed time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), wakeBound)
	defer cancel()
	n, err := backlog.Pace(ctx, s.temporal, sig)
	late := 0
	if err == nil {
		late, err = wake.Again(ctx, s.temporal, endpointID, sig, listed, s.wakeSettle, func(ctx context.Context) bool {
			return s.takesAttempts(ctx, endpointID)
		})
	}
	if err != nil {
		s.log.Warn("wake waiting deliveries", "endpoint_id", endpointID, "by", sig.By, "woken", n+late, "error", err)
		return
	}
	if n+late > 0 {
		s.log.Info("woke waiting deliveries", "endpoint_id", endpointID, "by", sig.By, "paced", n, "late", late)
	}
}

// takesAttempts reports whether endpointID is enabled with its circuit
// closed. If not, its waiting deliveries wait for the next change.
func (s *Server) takesAttempts(ctx context.Context, endpointID string) bool {
	ep, err := s.store.GetEndpoint(ctx, endpointID)
	if err != nil || !ep.Enabled {
		return false
	}
	b, err := s.store.Circuit(ctx, endpointID)
	return err == nil && b.IsClosed()
}
