package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/store"
)

const circuitColumns = `state, failures, open_until, cooldown_ns, probe_until, failing_since`

// Circuit returns the endpoint's breaker; an endpoint never written is
// closed. It is one indexed read; an attempt reads the breaker with its
// endpoint instead (ReadForAttempt).
func (s *Store) Circuit(ctx context.Context, endpointID string) (circuit.Breaker, error) {
	b, err := scanCircuit(s.read.QueryRowContext(ctx, `SELECT `+circuitColumns+` FROM hookd_circuits WHERE endpoint_id = $1`, endpointID))
	if errors.Is(err, sql.ErrNoRows) {
		return circuit.Breaker{State: circuit.Closed}, nil
	}
	if err != nil {
		return circuit.Breaker{}, fmt.Errorf("get circuit %s: %w", endpointID, err)
	}
	return b, nil
}

// UpdateCircuit reads, transforms and writes the breaker in one
// transaction, so concurrent workers see each other's transitions.
func (s *Store) UpdateCircuit(ctx context.Context, endpointID string, fn func(circuit.Breaker) circuit.Breaker) (circuit.Breaker, error) {
	return s.UpdateCircuitAnnouncing(ctx, endpointID, func(b circuit.Breaker) (circuit.Breaker, []store.OpEvent) { return fn(b), nil })
}

// UpdateCircuitAnnouncing is UpdateCircuit recording the events fn
// returns in the outbox, in the transaction that writes the breaker.
func (s *Store) UpdateCircuitAnnouncing(ctx context.Context, endpointID string, fn func(circuit.Breaker) (circuit.Breaker, []store.OpEvent)) (circuit.Breaker, error) {
	var (
		out    circuit.Breaker
		events []store.OpEvent
	)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var exists int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM hookd_endpoints WHERE id = $1`+s.dialect.LockRow, endpointID).Scan(&exists)
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		cur, err := scanCircuit(tx.QueryRowContext(ctx, `SELECT `+circuitColumns+` FROM hookd_circuits WHERE endpoint_id = $1`+s.dialect.LockRow, endpointID))
		if errors.Is(err, sql.ErrNoRows) {
			cur, err = circuit.Breaker{State: circuit.Closed}, nil
		}
		if err != nil {
			return err
		}
		out, events = fn(cur)
		_, err = tx.ExecContext(ctx, `INSERT INTO hookd_circuits (endpoint_id, `+circuitColumns+`, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (endpoint_id) DO UPDATE SET state = excluded.state, failures = excluded.failures,
				open_until = excluded.open_until, cooldown_ns = excluded.cooldown_ns,
				probe_until = excluded.probe_until, failing_since = excluded.failing_since, updated_at = excluded.updated_at`,
			endpointID, string(out.State), out.Failures, unixNano(out.OpenUntil), int64(out.Cooldown), unixNano(out.ProbeUntil), unixNano(out.FailingSince), time.Now().UnixNano())
		if err != nil {
			return err
		}
		return recordOpEvents(ctx, tx, events)
	})
	if errors.Is(err, store.ErrNotFound) {
		return circuit.Breaker{}, err
	}
	if err != nil {
		return circuit.Breaker{}, fmt.Errorf("update circuit %s: %w", endpointID, err)
	}
	s.announced(events)
	return out, nil
}

func scanCircuit(row *sql.Row) (circuit.Breaker, error) {
	var c nullCircuit
	if err := row.Scan(c.dest()...); err != nil {
		return circuit.Breaker{}, err
	}
	return c.breaker(), nil
}

// unixNano stores the zero time as 0.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
