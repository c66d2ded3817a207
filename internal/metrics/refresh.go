package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/visibility"
)

// CircuitLister lists every endpoint's circuit state (sqlstore.Store).
type CircuitLister interface {
	CircuitStates(ctx context.Context) (map[string]circuit.State, error)
}

// Sources are what the periodically computed gauges are read from.
type Sources struct {
	Temporal visibility.Reader // required
	Circuits CircuitLister     // nil leaves the circuit gauges out
	Now      func() time.Time
}

// DefaultRefreshEvery is how often RunRefresh reads the sources.
const DefaultRefreshEvery = 30 * time.Second

// RefreshSettle is how long after this process parks or redrives a dead
// letter RunRefresh reads the sources again, ahead of its period: the
// time visibility takes to show the change.
const RefreshSettle = time.Second

// RunRefresh refreshes the gauges every every (DefaultRefreshEvery if
// zero), and RefreshSettle after this process parks or redrives a dead
// letter, until ctx is done, logging failures.
func (m *Metrics) RunRefresh(ctx context.Context, src Sources, every time.Duration, log *slog.Logger) {
	if every <= 0 {
		every = DefaultRefreshEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		rctx, cancel := context.WithTimeout(ctx, every)
		if err := m.Refresh(rctx, src); err != nil && ctx.Err() == nil {
			log.Warn("refresh metrics", "error", err)
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-m.soon:
			select {
			case <-ctx.Done():
				return
			case <-time.After(RefreshSettle):
			}
		}
	}
}

// Refresh reads the dead letters, the oldest pending delivery and the
// circuit states once and sets their gauges.
func (m *Metrics) Refresh(ctx context.Context, src Sources) error {
	now := time.Now()
	if src.Now != nil {
		now = src.Now()
	}
	var errs []error
	if n, oldest, err := visibility.Oldest(ctx, src.Temporal, visibility.DeadLetters(""), now); err != nil {
		errs = append(errs, fmt.Errorf("dead letters: %w", err))
	} else {
		m.deadLetters.Set(float64(n))
		m.deadLetterOldest.Set(age(oldest, now))
	}
	if _, oldest, err := visibility.Oldest(ctx, src.Temporal, visibility.Pending(""), now); err != nil {
		errs = append(errs, fmt.Errorf("pending deliveries: %w", err))
	} else {
		m.pendingOldest.Set(age(oldest, now))
	}
	if src.Circuits != nil {
		if err := m.refreshCircuits(ctx, src.Circuits); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (m *Metrics) refreshCircuits(ctx context.Context, l CircuitLister) error {
	states, err := l.CircuitStates(ctx)
	if err != nil {
		return err
	}
	byState := map[circuit.State]float64{circuit.Closed: 0, circuit.HalfOpen: 0, circuit.Open: 0}
	if m.perEndpoint {
		m.circuitState.Reset()
	}
	for _, s := range states {
		byState[s]++
	}
	if m.perEndpoint {
		for _, id := range shown(states, m.labels.max) {
			m.circuitState.WithLabelValues(id).Set(circuitValue(states[id]))
		}
	}
	for s, n := range byState {
		m.circuits.WithLabelValues(string(s)).Set(n)
	}
	return nil
}

// circuitValue is a state as hookd_circuit_state reports it.
func circuitValue(s circuit.State) float64 {
	switch s {
	case circuit.HalfOpen:
		return 1
	case circuit.Open:
		return 2
	default:
		return 0
	}
}

// age is the seconds since t, or 0 for the zero time.
func age(t, now time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return max(now.Sub(t).Seconds(), 0)
}

// shown is the endpoints hookd_circuit_state shows: every one when max is
// negative, else at most max, those whose circuit is not closed first,
// each kind in ID order.
func shown(states map[string]circuit.State, max int) []string {
	ids := make([]string, 0, len(states))
	for id := range states {
		ids = append(ids, id)
	}
	closed := func(id string) bool { return states[id] == circuit.Closed }
	sort.Slice(ids, func(i, j int) bool {
		if ci, cj := closed(ids[i]), closed(ids[j]); ci != cj {
			return cj
		}
		return ids[i] < ids[j]
	})
	if max >= 0 && len(ids) > max {
		ids = ids[:max]
	}
	return ids
}
