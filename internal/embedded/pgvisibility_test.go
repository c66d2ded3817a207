package embedded

import (
	"context"
	"database/sql"
	"maps"
	"net/url"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/server/common/log"

	"github.com/hookd/hookd/internal/store/pgtest"
)

// TestPostgresVisibilityIndexes sets up Temporal's persistence in a new
// PostgreSQL with every visibility index, then as the embedded server
// runs by default (the unused ones dropped, each definition recorded);
// brings them back; and checks that a pending schema update has them
// created again before Temporal's scripts run and dropped after.
func TestPostgresVisibilityIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL; skipped with -short")
	}
	u, err := url.Parse(pgtest.Start(t))
	require.NoError(t, err)
	u.Path = "/temporal"
	p := Postgres{URL: u.String()}
	ctx := context.Background()
	logger := log.NewNoopLogger()

	_, vis, err := preparePostgres(ctx, p, Tuning{AllVisibilityIndexes: true}, logger)
	require.NoError(t, err)
	db, err := p.openDatabase(vis.DatabaseName)
	require.NoError(t, err)
	defer db.Close()
	stock := pgVisibilityIndexes(t, db)
	require.Greater(t, len(stock), 70, "Temporal's schema indexes nearly every column")
	for name := range keptVisibilityIndexes {
		require.Contains(t, stock, name, "every kept index is one of Temporal's")
	}

	_, _, err = preparePostgres(ctx, p, Tuning{}, logger)
	require.NoError(t, err)
	kept := pgVisibilityIndexes(t, db)
	require.ElementsMatch(t, append(slices.Collect(maps.Keys(keptVisibilityIndexes)), "executions_visibility_pkey"), slices.Collect(maps.Keys(kept)))
	recorded := droppedIndexes(t, db)
	require.Len(t, recorded, len(stock)-len(kept))
	for name, def := range recorded {
		require.Equal(t, stock[name], def, "%s is recorded with the statement that creates it", name)
	}
	_, _, err = preparePostgres(ctx, p, Tuning{}, logger)
	require.NoError(t, err, "a second start finds nothing more to drop")
	require.Equal(t, kept, pgVisibilityIndexes(t, db))

	n, err := restorePostgresVisibilityIndexes(ctx, db)
	require.NoError(t, err)
	require.Equal(t, len(recorded), n)
	require.Equal(t, stock, pgVisibilityIndexes(t, db), "restored with their definitions")
	require.Empty(t, droppedIndexes(t, db))
	_, err = dropPostgresVisibilityIndexes(ctx, db)
	require.NoError(t, err)
	require.Equal(t, kept, pgVisibilityIndexes(t, db))

	called := false
	hook := func() error { called = true; return nil }
	require.NoError(t, updateSchema(vis, pgVisibilitySchema, hook, logger))
	require.False(t, called, "no update pending: the dropped indexes stay dropped")

	setSchemaVersion(t, db, "1.13")
	require.NoError(t, updateSchema(vis, pgVisibilitySchema, func() error {
		called = true
		require.Equal(t, kept, pgVisibilityIndexes(t, db), "the hook runs before the update")
		return nil
	}, logger))
	require.True(t, called, "an update pending: the hook runs first")

	// A record written in another form than pg_get_indexdef's comes back
	// in that form only if the start created its index again.
	_, err = db.Exec(`INSERT INTO ` + pgDroppedIndexes + ` VALUES ('probe_idx', 'CREATE INDEX probe_idx ON executions_visibility (namespace_id)')`)
	require.NoError(t, err)
	setSchemaVersion(t, db, "1.13")
	_, _, err = preparePostgres(ctx, p, Tuning{}, logger)
	require.NoError(t, err, "a start with an update pending")
	require.Equal(t, kept, pgVisibilityIndexes(t, db), "dropped again after the update")
	after := droppedIndexes(t, db)
	require.Len(t, after, len(recorded)+1)
	require.Equal(t, "CREATE INDEX probe_idx ON public.executions_visibility USING btree (namespace_id)", after["probe_idx"],
		"the start created the recorded indexes again before the update, and dropped them after")
	delete(after, "probe_idx")
	require.Equal(t, recorded, after)
	_, err = db.Exec(`DELETE FROM ` + pgDroppedIndexes + ` WHERE name = 'probe_idx'`)
	require.NoError(t, err)

	_, _, err = preparePostgres(ctx, p, Tuning{AllVisibilityIndexes: true}, logger)
	require.NoError(t, err)
	require.Equal(t, stock, pgVisibilityIndexes(t, db), "all indexes asked for: the dropped ones come back")
	require.Empty(t, droppedIndexes(t, db))
}

func pgVisibilityIndexes(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	return nameDefs(t, db, `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'executions_visibility'`)
}

func droppedIndexes(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	return nameDefs(t, db, `SELECT name, definition FROM `+pgDroppedIndexes)
}

func nameDefs(t *testing.T, db *sql.DB, query string) map[string]string {
	t.Helper()
	out, err := namedDefinitions(context.Background(), db, query)
	require.NoError(t, err)
	return out
}

func setSchemaVersion(t *testing.T, db *sql.DB, v string) {
	t.Helper()
	_, err := db.Exec(`UPDATE schema_version SET curr_version = $1 WHERE version_partition = 0`, v)
	require.NoError(t, err)
}

func TestVersionLess(t *testing.T) {
	require.True(t, versionLess("1.9", "1.14"))
	require.True(t, versionLess("0.0", "1.0"))
	require.True(t, versionLess("1.13", "1.14"))
	require.False(t, versionLess("1.14", "1.14"))
	require.False(t, versionLess("1.14", "1.9"))
	v, err := newestSchemaVersion(pgVisibilitySchema)
	require.NoError(t, err)
	require.False(t, versionLess(v, "1.14"), "the embedded visibility schema is at 1.14 or newer")
}
