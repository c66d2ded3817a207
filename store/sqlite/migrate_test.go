package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/store"
	"github.com/hookd/hookd/store/sqlite"
	"github.com/hookd/hookd/store/storetest"
)

// A database from before the event records (schema version 3) gains them
// on open and keeps its endpoints.
func TestMigratesDatabaseWithoutEventRecords(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hookd.db")
	key := storetest.Key(t)
	s, err := sqlite.Open(ctx, path, key)
	require.NoError(t, err)
	require.NoError(t, s.CreateEndpoint(ctx, endpoint("ep_old"), "whsec_old"))
	require.NoError(t, s.Close())

	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	for _, stmt := range []string{
		`DROP TABLE hookd_event_deliveries`,
		`DROP TABLE hookd_events`,
		`DELETE FROM hookd_schema_migrations WHERE version > 3`,
	} {
		_, err = db.Exec(stmt)
		require.NoError(t, err)
	}
	require.NoError(t, db.Close())

	s, err = sqlite.Open(ctx, path, key)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.GetEndpoint(ctx, "ep_old")
	require.NoError(t, err)
	ev := &store.Event{ID: "evt_1", Type: "a.b", Digest: "d", Payload: "{}", AcceptedAt: time.Now(),
		Deliveries: []store.EventDelivery{{ID: "dlv_1", EndpointID: "ep_old"}}}
	_, claimed, err := s.ClaimEvent(ctx, ev)
	require.NoError(t, err)
	require.True(t, claimed)
}
