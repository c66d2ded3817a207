package sqlstore

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/pgtest"
	"github.com/hookd/hookd/internal/store/secretbox"
)

// A database from before the event records and tenants (schema version 3)
// gains both on open, and an endpoint stored then keeps working: it has no
// tenant, lists and matches as the platform's own, and deleting a tenant
// leaves it alone.
func TestMigrationFromBeforeEventsAndTenants(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "hookd.db")
		db, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(1)&_txlock=immediate")
		require.NoError(t, err)
		db.SetMaxOpenConns(1)
		checkTenantMigration(t, db, Dialect{Name: "sqlite", BlobType: "BLOB"})
	})
	t.Run("postgres", func(t *testing.T) {
		db, err := sql.Open("pgx", pgtest.NewDatabase(t, pgtest.Start(t)))
		require.NoError(t, err)
		checkTenantMigration(t, db, Dialect{Name: "postgres", BlobType: "BYTEA", LockRow: " FOR UPDATE"})
	})
}

// eventsVersion is the schema version that added the event records;
// tenants came after it.
const eventsVersion = 4

func checkTenantMigration(t *testing.T, db *sql.DB, d Dialect) {
	ctx := context.Background()
	key, err := secretbox.GenerateKey()
	require.NoError(t, err)

	// The schema as the release before event records left it, with an
	// endpoint.
	all := migrations
	migrations = all[:eventsVersion-1]
	old := &Store{read: db, write: db, dialect: d}
	err = old.migrate(ctx)
	migrations = all
	require.NoError(t, err)
	now := time.Now().UTC()
	_, err = db.ExecContext(ctx, `INSERT INTO hookd_endpoints (id, url, description, event_types, enabled, retry_schedule,
		timeout_ns, metadata, created_at, updated_at) VALUES ('ep_old', 'https://example.com', '', '["order.*"]', TRUE, '[]', 0, '{}', $1, $1)`,
		now.UnixNano())
	require.NoError(t, err)

	s, err := New(ctx, Config{Read: db, Dialect: d, Key: key})
	require.NoError(t, err)
	defer s.Close()
	ep, err := s.GetEndpoint(ctx, "ep_old")
	require.NoError(t, err)
	require.Empty(t, ep.TenantID)
	matched, err := s.MatchingEndpoints(ctx, "", "order.created")
	require.NoError(t, err)
	require.Len(t, matched, 1, "an untenanted event still reaches it")
	listed, _, err := s.ListEndpoints(ctx, store.OfTenant(""), store.Page{})
	require.NoError(t, err)
	require.Len(t, listed, 1)

	_, _, err = s.PutTenant(ctx, &store.Tenant{ID: "acme", CreatedAt: now, UpdatedAt: now})
	require.NoError(t, err)
	require.NoError(t, s.CreateEndpoint(ctx, &store.Endpoint{ID: "ep_acme", URL: "https://example.com", Enabled: true,
		TenantID: "acme", CreatedAt: now, UpdatedAt: now}, "whsec_x"))
	matched, err = s.MatchingEndpoints(ctx, "acme", "order.created")
	require.NoError(t, err)
	require.Len(t, matched, 1)
	require.NoError(t, s.DeleteTenant(ctx, "acme"))
	_, err = s.GetEndpoint(ctx, "ep_acme")
	require.ErrorIs(t, err, store.ErrNotFound, "the cascade works on a migrated table")
	_, err = s.GetEndpoint(ctx, "ep_old")
	require.NoError(t, err)

	ev := &store.Event{ID: "evt_1", Type: "a.b", Digest: "d", Payload: "{}", AcceptedAt: now,
		Deliveries: []store.EventDelivery{{ID: "dlv_1", EndpointID: "ep_old"}}}
	_, claimed, err := s.ClaimEvent(ctx, ev)
	require.NoError(t, err)
	require.True(t, claimed, "the event records work on a migrated database")
}
