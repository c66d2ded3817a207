package sqlstore

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/pgtest"
	"github.com/hookd/hookd/internal/store/secretbox"
)

// An event's payload is stored encrypted (its row holds no byte of the
// JSON), reads back as posted, cannot be moved to another event's row, and
// a row written in plaintext before payloads were sealed still reads.
func TestEventPayloadSealedAtRest(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "hookd.db")+"?_pragma=foreign_keys(1)&_txlock=immediate")
		require.NoError(t, err)
		db.SetMaxOpenConns(1)
		checkSealedPayloads(t, db, Dialect{Name: "sqlite", BlobType: "BLOB"})
	})
	t.Run("postgres", func(t *testing.T) {
		db, err := sql.Open("pgx", pgtest.NewDatabase(t, pgtest.Start(t)))
		require.NoError(t, err)
		checkSealedPayloads(t, db, Dialect{Name: "postgres", BlobType: "BYTEA", LockRow: " FOR UPDATE"})
	})
}

func checkSealedPayloads(t *testing.T, db *sql.DB, d Dialect) {
	ctx := context.Background()
	key, err := secretbox.GenerateKey()
	require.NoError(t, err)
	s, err := New(ctx, Config{Read: db, Dialect: d, Key: key})
	require.NoError(t, err)
	defer s.Close()
	const payload = `{"email":"ada@example.com","marker":"sealed-payload-marker"}`
	now := time.Now().UTC()
	for _, id := range []string{"evt_a", "evt_b"} {
		_, claimed, err := s.ClaimEvent(ctx, &store.Event{ID: id, Type: "user.created", Digest: "d", Payload: payload, AcceptedAt: now})
		require.NoError(t, err)
		require.True(t, claimed)
	}

	var stored string
	require.NoError(t, db.QueryRowContext(ctx, `SELECT payload FROM hookd_events WHERE event_id = 'evt_a'`).Scan(&stored))
	require.NotContains(t, stored, "sealed-payload-marker")
	require.NotContains(t, stored, "ada@example.com")
	got, err := s.GetEvent(ctx, "evt_a")
	require.NoError(t, err)
	require.Equal(t, payload, got.Payload)

	// A re-post reads the sealed record back to compare with it.
	again, claimed, err := s.ClaimEvent(ctx, &store.Event{ID: "evt_a", Type: "user.created", Digest: "d", Payload: payload, AcceptedAt: now})
	require.NoError(t, err)
	require.False(t, claimed)
	require.Equal(t, payload, again.Payload)

	// evt_a's ciphertext in evt_b's row does not decrypt.
	_, err = db.ExecContext(ctx, `UPDATE hookd_events SET payload = $1 WHERE event_id = 'evt_b'`, stored)
	require.NoError(t, err)
	_, err = s.GetEvent(ctx, "evt_b")
	require.ErrorContains(t, err, "decrypt payload of event evt_b")

	// A row from before sealing holds the JSON itself.
	_, err = db.ExecContext(ctx, `UPDATE hookd_events SET payload = $1 WHERE event_id = 'evt_b'`, payload)
	require.NoError(t, err)
	got, err = s.GetEvent(ctx, "evt_b")
	require.NoError(t, err)
	require.Equal(t, payload, got.Payload)
}
