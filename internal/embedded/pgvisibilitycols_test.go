package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/server/common/log"

	"github.com/hookd/hookd/internal/store/pgtest"
)

// visibilityRowsSQL inserts rows into table whose search attributes set
// columns of every type the generated ones have: boolean, timestamp
// (through convert_ts), numeric, bigint, keyword, text search vector,
// keyword list and the system attributes' JSON.
const visibilityRowsSQL = `INSERT INTO %s (namespace_id, run_id, workflow_type_name, workflow_id, start_time, execution_time, status, encoding, search_attributes)
	VALUES ('ns', $1, 'type', 'wf', '2026-01-01 00:00:00', '2026-01-01 00:00:00', 1, 'proto3', $2)`

var visibilitySearchAttributes = []string{
	`{"Bool01": true, "Datetime02": "2026-01-02T03:04:05.123456789Z", "Double03": 1.234567, "Int03": 42,
	  "Keyword01": "evt_1", "Keyword09": "k", "Text02": "hello world", "KeywordList03": ["a", "b"],
	  "TemporalChangeVersion": ["v1"], "BuildIds": ["unversioned"], "TemporalSchedulePaused": false,
	  "TemporalScheduledStartTime": "2026-03-04T05:06:07Z", "BatcherUser": "ops", "TemporalInt01": 7}`,
	`{}`,
}

// TestPostgresVisibilityColumns sets up Temporal's visibility schema in a
// new PostgreSQL as shipped, then as the embedded server runs by default
// (its generated columns plain, filled by a trigger from the recorded
// expressions), and checks that rows written either way, inserted and
// updated, hold the same values; that a second start changes nothing;
// that the columns come back generated with their expressions and
// indexes; and that a pending schema update leaves them filled again.
func TestPostgresVisibilityColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL; skipped with -short")
	}
	u, err := url.Parse(pgtest.Start(t))
	require.NoError(t, err)
	u.Path = "/temporal"
	p := Postgres{URL: u.String()}
	ctx := context.Background()
	logger := log.NewNoopLogger()

	_, vis, err := preparePostgres(ctx, p, Tuning{StockVisibilityColumns: true}, logger)
	require.NoError(t, err)
	db, err := p.openDatabase(vis.DatabaseName)
	require.NoError(t, err)
	defer db.Close()
	stock := generatedExpressions(t, db)
	require.Greater(t, len(stock), 50, "Temporal's schema generates a column per search attribute")
	indexes := pgVisibilityIndexes(t, db)
	_, err = db.Exec(`CREATE TABLE stock_rows (LIKE executions_visibility INCLUDING DEFAULTS INCLUDING GENERATED)`)
	require.NoError(t, err)

	_, _, err = preparePostgres(ctx, p, Tuning{}, logger)
	require.NoError(t, err)
	require.Empty(t, generatedExpressions(t, db), "every generated column reads only search_attributes, and is plain now")
	require.Equal(t, stock, nameDefs(t, db, `SELECT name, expression FROM `+pgFilledColumns), "each recorded with its expression")
	require.Equal(t, indexes, pgVisibilityIndexes(t, db), "the indexes stay")
	writeBoth(t, db, "r1", "r2")
	requireSameRows(t, db)

	n, err := fillPostgresVisibilityColumns(ctx, db)
	require.NoError(t, err)
	require.Zero(t, n, "a second start finds nothing more to fill")
	writeBoth(t, db, "r3", "r4")
	requireSameRows(t, db)

	n, err = restorePostgresVisibilityColumns(ctx, db)
	require.NoError(t, err)
	require.Equal(t, len(stock), n)
	require.Equal(t, stock, generatedExpressions(t, db), "generated again by their expressions")
	require.Equal(t, indexes, pgVisibilityIndexes(t, db), "the indexes on them created again")
	require.Empty(t, nameDefs(t, db, `SELECT name, expression FROM `+pgFilledColumns))
	requireSameRows(t, db)

	// A pending update runs on Temporal's schema; a column it adds is
	// filled after it like the rest. At 1.13 the table had neither the
	// column v1.14 adds nor its index.
	_, err = fillPostgresVisibilityColumns(ctx, db)
	require.NoError(t, err)
	_, err = db.Exec(`ALTER TABLE executions_visibility DROP COLUMN temporalexternalpayloadcount`)
	require.NoError(t, err)
	_, err = db.Exec(`DELETE FROM ` + pgDroppedIndexes + ` WHERE name = 'by_temporal_external_payload_count'`)
	require.NoError(t, err)
	_, err = db.Exec(`ALTER TABLE stock_rows DROP COLUMN temporalexternalpayloadcount,
		ADD COLUMN temporalexternalpayloadcount BIGINT GENERATED ALWAYS AS ((search_attributes->'TemporalExternalPayloadCount')::bigint) STORED`)
	require.NoError(t, err)
	setSchemaVersion(t, db, "1.13")
	_, _, err = preparePostgres(ctx, p, Tuning{}, logger)
	require.NoError(t, err, "a start with an update pending")
	require.Empty(t, generatedExpressions(t, db))
	require.Equal(t, stock, nameDefs(t, db, `SELECT name, expression FROM `+pgFilledColumns), "the column the update added is recorded too")
	writeBoth(t, db, "r5", "r6")
	requireSameRows(t, db)

	_, _, err = preparePostgres(ctx, p, Tuning{StockVisibilityColumns: true}, logger)
	require.NoError(t, err)
	require.Equal(t, stock, generatedExpressions(t, db), "the schema as shipped asked for: generated again")
	var triggers int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM pg_trigger WHERE tgname = $1`, pgFillFunction).Scan(&triggers))
	require.Zero(t, triggers)
	requireSameRows(t, db)
}

// generatedExpressions maps each stored generated column of
// executions_visibility to its expression.
func generatedExpressions(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	return nameDefs(t, db, `SELECT a.attname, pg_get_expr(d.adbin, d.adrelid)
		FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE a.attrelid = 'executions_visibility'::regclass AND a.attgenerated = 's'`)
}

// writeBoth writes the same two rows to executions_visibility and to
// stock_rows, which keeps Temporal's generated columns, then updates
// the first row's search attributes in both.
func writeBoth(t *testing.T, db *sql.DB, first, second string) {
	t.Helper()
	for _, table := range []string{"executions_visibility", "stock_rows"} {
		for i, run := range []string{first, second} {
			_, err := db.Exec(fmtTable(visibilityRowsSQL, table), run, visibilitySearchAttributes[i])
			require.NoError(t, err)
		}
		_, err := db.Exec(fmtTable(`UPDATE %s SET search_attributes = $2 WHERE run_id = $1`, table), second, visibilitySearchAttributes[0])
		require.NoError(t, err)
		_, err = db.Exec(fmtTable(`UPDATE %s SET search_attributes = '{"Int03": 9}' WHERE run_id = $1`, table), first)
		require.NoError(t, err)
	}
}

// requireSameRows fails unless both tables hold the same rows, compared
// column by column by name.
func requireSameRows(t *testing.T, db *sql.DB) {
	t.Helper()
	var rows, differ int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM executions_visibility`).Scan(&rows))
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM (
		(SELECT to_jsonb(e) FROM executions_visibility e EXCEPT SELECT to_jsonb(s) FROM stock_rows s)
		UNION ALL
		(SELECT to_jsonb(s) FROM stock_rows s EXCEPT SELECT to_jsonb(e) FROM executions_visibility e)) d`).Scan(&differ))
	require.NotZero(t, rows)
	require.Zero(t, differ, "every row holds what Temporal's generated columns compute")
}

func fmtTable(query, table string) string {
	return fmt.Sprintf(query, table)
}
