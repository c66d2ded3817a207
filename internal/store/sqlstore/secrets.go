package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// Secrets returns the endpoint's secrets valid at now (no expiry, or one
// after now), newest first, or store.ErrNotFound when the endpoint does not
// exist. It is one indexed query.
func (s *Store) Secrets(ctx context.Context, endpointID string, now time.Time) ([]store.Secret, error) {
	secrets, err := s.secrets(ctx, endpointID, now)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return secrets, nil
}

// getSecretsSQL returns one row with NULLs for an endpoint without valid
// secrets and none for a missing endpoint.
const getSecretsSQL = `SELECT s.ciphertext, s.created_at, s.expires_at
	FROM hookd_endpoints e LEFT JOIN hookd_endpoint_secrets s
		ON s.endpoint_id = e.id AND (s.expires_at IS NULL OR s.expires_at > $2)
	WHERE e.id = $1
	ORDER BY s.created_at DESC, s.seq DESC`

func (s *Store) secrets(ctx context.Context, endpointID string, now time.Time) ([]store.Secret, error) {
	rows, err := s.getSecrets.QueryContext(ctx, endpointID, now.UnixNano())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := false
	var secrets []store.Secret
	for rows.Next() {
		found = true
		var row secretRow
		if err := rows.Scan(row.dest()...); err != nil {
			return nil, err
		}
		if sec, ok, err := s.secret(endpointID, row); err != nil {
			return nil, err
		} else if ok {
			secrets = append(secrets, sec)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, store.ErrNotFound
	}
	return secrets, nil
}

// secretRow scans one row of a secret's ciphertext, created_at and
// expires_at, all NULL for an endpoint without valid secrets.
type secretRow struct {
	sealed           []byte
	created, expires sql.NullInt64
}

func (r *secretRow) dest() []any { return []any{&r.sealed, &r.created, &r.expires} }

// secret opens the row's secret; ok is false for a row of NULLs.
func (s *Store) secret(endpointID string, r secretRow) (store.Secret, bool, error) {
	if !r.created.Valid {
		return store.Secret{}, false, nil
	}
	value, err := s.open(endpointID, r.sealed)
	if err != nil {
		return store.Secret{}, false, err
	}
	sec := store.Secret{Value: value, CreatedAt: fromNanos(r.created.Int64)}
	if r.expires.Valid {
		sec.ExpiresAt = fromNanos(r.expires.Int64)
	}
	return sec, true, nil
}

// RotateSecret adds newSecret, valid from now, and makes every older secret
// expire at now+overlap unless it expires sooner already. Secrets that had
// expired by now are deleted. It returns store.ErrNotFound when the endpoint
// does not exist.
func (s *Store) RotateSecret(ctx context.Context, endpointID, newSecret string, now time.Time, overlap time.Duration) error {
	err := s.rotateSecret(ctx, endpointID, newSecret, now, overlap)
	if err != nil {
		return fmt.Errorf("rotate secret: %w", err)
	}
	return nil
}

func (s *Store) rotateSecret(ctx context.Context, endpointID, newSecret string, now time.Time, overlap time.Duration) error {
	sealed, err := s.seal(endpointID, newSecret)
	if err != nil {
		return err
	}
	nowNanos, expires := now.UnixNano(), now.Add(max(overlap, 0)).UnixNano()
	return s.inTx(ctx, func(tx *sql.Tx) error {
		// A no-op update that finds the endpoint and, on PostgreSQL, locks
		// it so that concurrent rotations take turns.
		if err := execOneIn(ctx, tx, `UPDATE hookd_endpoints SET updated_at = updated_at WHERE id = $1`, endpointID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM hookd_endpoint_secrets
			WHERE endpoint_id = $1 AND expires_at <= $2`, endpointID, nowNanos); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE hookd_endpoint_secrets SET expires_at = $2
			WHERE endpoint_id = $1 AND (expires_at IS NULL OR expires_at > $2)`, endpointID, expires); err != nil {
			return err
		}
		var seq int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM hookd_endpoint_secrets
			WHERE endpoint_id = $1`, endpointID).Scan(&seq); err != nil {
			return err
		}
		return insertSecret(ctx, tx, endpointID, seq, sealed, nowNanos)
	})
}

// RawSecrets returns the endpoint's stored secret values as they are at
// rest, oldest first, expired ones included. It exists for tests and audits
// that check what the database holds.
func (s *Store) RawSecrets(ctx context.Context, endpointID string) ([][]byte, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT ciphertext FROM hookd_endpoint_secrets
		WHERE endpoint_id = $1 ORDER BY seq`, endpointID)
	if err != nil {
		return nil, fmt.Errorf("raw secrets: %w", err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("raw secrets: %w", err)
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("raw secrets: %w", err)
	}
	return out, nil
}

func insertSecret(ctx context.Context, tx *sql.Tx, endpointID string, seq int64, sealed []byte, created int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO hookd_endpoint_secrets (endpoint_id, seq, ciphertext, created_at)
		VALUES ($1, $2, $3, $4)`, endpointID, seq, sealed, created)
	return err
}

// seal encrypts a secret bound to its endpoint, so a ciphertext copied to
// another endpoint's row does not decrypt.
func (s *Store) seal(endpointID, secret string) ([]byte, error) {
	sealed, err := s.box.Seal([]byte(secret), secretAD(endpointID))
	if err != nil {
		return nil, fmt.Errorf("encrypt secret: %w", err)
	}
	return sealed, nil
}

func (s *Store) open(endpointID string, sealed []byte) (string, error) {
	plain, err := s.box.Open(sealed, secretAD(endpointID))
	if err != nil {
		return "", fmt.Errorf("decrypt secret of endpoint %s: %w", endpointID, err)
	}
	return string(plain), nil
}

func secretAD(endpointID string) []byte {
	return []byte("hookd endpoint secret\x00" + endpointID)
}
