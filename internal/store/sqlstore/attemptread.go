package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/store"
)

// readForAttemptSQL reads the endpoint with its credentials and its
// event's wrapped key and expunge mark (NULL: no such event), joined to
// its circuit (NULLs: never written) and to its secrets valid at $3 (one
// row each, newest first; NULLs when it has none). It returns no row for
// a missing endpoint.
const readForAttemptSQL = `SELECT ep.*, c.state, c.failures, c.open_until, c.cooldown_ns, c.probe_until, c.failing_since, s.ciphertext, s.created_at, s.expires_at
	FROM (SELECT ` + endpointColumns + `, ` + credentialsColumn + ` AS credentials,
		(SELECT e.data_key FROM hookd_events e WHERE e.event_id = $2) AS event_data_key,
		(SELECT e.expunged_at IS NOT NULL FROM hookd_events e WHERE e.event_id = $2) AS event_expunged
		FROM hookd_endpoints WHERE id = $1) ep
	LEFT JOIN hookd_circuits c ON c.endpoint_id = ep.id
	LEFT JOIN hookd_endpoint_secrets s ON s.endpoint_id = ep.id AND (s.expires_at IS NULL OR s.expires_at > $3)
	ORDER BY s.created_at DESC, s.seq DESC`

// ReadForAttempt reads what an attempt needs of the store in one
// prepared query: the endpoint, its event's key, its valid secrets and
// its circuit.
func (s *Store) ReadForAttempt(ctx context.Context, endpointID, eventID string, now time.Time) (*store.AttemptRead, error) {
	r, err := s.readForAttempt(ctx, endpointID, eventID, now)
	if err != nil {
		return nil, fmt.Errorf("read endpoint %s for an attempt: %w", endpointID, err)
	}
	return r, nil
}

func (s *Store) readForAttempt(ctx context.Context, endpointID, eventID string, now time.Time) (*store.AttemptRead, error) {
	rows, err := s.readAttempt.QueryContext(ctx, endpointID, eventID, now.UnixNano())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var r *store.AttemptRead
	for rows.Next() {
		var (
			wrapped  []byte
			expunged sql.NullBool
			c        nullCircuit
			sec      secretRow
		)
		ep, err := s.scanEndpointWithCredentials(withExtra{rows, append([]any{&wrapped, &expunged}, append(c.dest(), sec.dest()...)...)})
		if err != nil {
			return nil, err
		}
		if r == nil {
			r = &store.AttemptRead{Endpoint: ep, Key: store.EventKey{Found: expunged.Valid, Expunged: expunged.Bool}, Circuit: c.breaker()}
			if r.Key.Key, err = s.unwrapKey(eventID, wrapped); err != nil {
				return nil, err
			}
		}
		if secret, ok, err := s.secret(endpointID, sec); err != nil {
			return nil, err
		} else if ok {
			r.Secrets = append(r.Secrets, secret)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, store.ErrNotFound
	}
	return r, nil
}

// nullCircuit scans circuitColumns from an outer join (NULLs: none).
type nullCircuit struct {
	state                                    sql.NullString
	failures, open, cooldown, probe, failing sql.NullInt64
}

func (c *nullCircuit) dest() []any {
	return []any{&c.state, &c.failures, &c.open, &c.cooldown, &c.probe, &c.failing}
}

// breaker is the circuit scanned; a circuit never written is closed.
func (c *nullCircuit) breaker() circuit.Breaker {
	if !c.state.Valid {
		return circuit.Breaker{State: circuit.Closed}
	}
	return circuit.Breaker{State: circuit.State(c.state.String), Failures: int(c.failures.Int64),
		OpenUntil: fromUnixNano(c.open.Int64), Cooldown: time.Duration(c.cooldown.Int64),
		ProbeUntil: fromUnixNano(c.probe.Int64), FailingSince: fromUnixNano(c.failing.Int64)}
}

// withExtra scans a row into the destinations asked for, then extra.
type withExtra struct {
	sc    scanner
	extra []any
}

func (w withExtra) Scan(dest ...any) error { return w.sc.Scan(append(dest, w.extra...)...) }
