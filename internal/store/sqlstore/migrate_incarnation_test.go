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

// A database from before tenant incarnations (schema version 6) gains
// them on open: its tenants, their endpoints and events keep the
// incarnation "" (that of deliveries without the search attribute), still
// list as the tenant's, and a tenant deleted and created again gets a new
// one while the old records go with the deletion.
func TestMigrationToIncarnations(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "hookd.db")+"?_pragma=foreign_keys(1)&_txlock=immediate")
		require.NoError(t, err)
		db.SetMaxOpenConns(1)
		checkIncarnationMigration(t, db, Dialect{Name: "sqlite", BlobType: "BLOB"})
	})
	t.Run("postgres", func(t *testing.T) {
		db, err := sql.Open("pgx", pgtest.NewDatabase(t, pgtest.Start(t)))
		require.NoError(t, err)
		checkIncarnationMigration(t, db, Dialect{Name: "postgres", BlobType: "BYTEA", LockRow: " FOR UPDATE"})
	})
}

// incarnationVersion is the schema version that added incarnations.
const incarnationVersion = 7

func checkIncarnationMigration(t *testing.T, db *sql.DB, d Dialect) {
	ctx := context.Background()
	key, err := secretbox.GenerateKey()
	require.NoError(t, err)
	all := migrations
	migrations = all[:incarnationVersion-1]
	old := &Store{read: db, write: db, dialect: d}
	err = old.migrate(ctx)
	migrations = all
	require.NoError(t, err)
	now := time.Now().UTC().UnixNano()
	for _, stmt := range []string{
		`INSERT INTO hookd_tenants (id, name, metadata, created_at, updated_at) VALUES ('acme', '', '{}', $1, $1)`,
		`INSERT INTO hookd_endpoints (id, url, description, event_types, enabled, retry_schedule, timeout_ns, metadata,
			created_at, updated_at, tenant_id) VALUES ('ep_old', 'https://example.com', '', '[]', TRUE, '[]', 0, '{}', $1, $1, 'acme')`,
		`INSERT INTO hookd_events (event_id, type, digest, payload, tenant_id, accepted_at) VALUES ('evt_old', 'a.b', 'd', '{}', 'acme', $1)`,
	} {
		_, err := db.ExecContext(ctx, stmt, now)
		require.NoError(t, err)
	}

	s, err := New(ctx, Config{Read: db, Dialect: d, Key: key})
	require.NoError(t, err)
	defer s.Close()
	tn, err := s.GetTenant(ctx, "acme")
	require.NoError(t, err)
	require.Empty(t, tn.Incarnation)
	ep, err := s.GetEndpoint(ctx, "ep_old")
	require.NoError(t, err)
	require.Empty(t, ep.TenantIncarnation)
	evs, _, err := s.ListEvents(ctx, store.EventFilter{Tenant: &store.TenantFilter{ID: "acme"}}, store.Page{})
	require.NoError(t, err)
	require.Len(t, evs, 1, "the tenant's old event still lists as its own")

	require.NoError(t, s.DeleteTenant(ctx, "acme"))
	_, err = s.DeleteTenantEvents(ctx, "acme", "")
	require.NoError(t, err)
	_, err = s.GetEvent(ctx, "evt_old")
	require.ErrorIs(t, err, store.ErrNotFound, "the old incarnation's events go with its expunge job")
	again, _, err := s.PutTenant(ctx, &store.Tenant{ID: "acme", CreatedAt: time.Now(), UpdatedAt: time.Now()})
	require.NoError(t, err)
	require.NotEmpty(t, again.Incarnation)
}
