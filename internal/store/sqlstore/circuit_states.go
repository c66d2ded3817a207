package sqlstore

import (
	"context"
	"fmt"

	"github.com/hookd/hookd/internal/circuit"
)

// CircuitStates returns the circuit state of every endpoint, closed for
// those whose circuit was never written: what the metrics report.
func (s *Store) CircuitStates(ctx context.Context) (map[string]circuit.State, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT e.id, COALESCE(c.state, $1)
		FROM hookd_endpoints e LEFT JOIN hookd_circuits c ON c.endpoint_id = e.id`, string(circuit.Closed))
	if err != nil {
		return nil, fmt.Errorf("list circuit states: %w", err)
	}
	defer rows.Close()
	out := map[string]circuit.State{}
	for rows.Next() {
		var id, state string
		if err := rows.Scan(&id, &state); err != nil {
			return nil, fmt.Errorf("list circuit states: %w", err)
		}
		out[id] = circuit.State(state)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list circuit states: %w", err)
	}
	return out, nil
}
