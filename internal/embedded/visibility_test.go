package embedded

import (
	"context"
	"database/sql"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func visibilityIndexes(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'executions_visibility' AND sql IS NOT NULL`)
	require.NoError(t, err)
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		require.NoError(t, rows.Scan(&n))
		names = append(names, n)
	}
	require.NoError(t, rows.Err())
	sort.Strings(names)
	return names
}

func TestTrimVisibilityIndexesKeepsOnlyTheUsedOnes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vis.db")
	require.NoError(t, prepare(sqliteConfig(path)))
	before := visibilityIndexes(t, path)
	// Every kept index exists in Temporal's schema: a rename upstream
	// would otherwise silently drop one hookd relies on.
	for name := range keptVisibilityIndexes {
		require.Contains(t, before, name)
	}

	n, err := tuneVisibility(context.Background(), path, Tuning{StockFTSTrigger: true})
	require.NoError(t, err)
	require.Equal(t, len(before)-len(keptVisibilityIndexes), n)
	after := visibilityIndexes(t, path)
	require.Len(t, after, len(keptVisibilityIndexes))
	for _, name := range after {
		require.True(t, keptVisibilityIndexes[name], name)
	}

	again, err := tuneVisibility(context.Background(), path, Tuning{StockFTSTrigger: true})
	require.NoError(t, err)
	require.Zero(t, again, "a second start drops nothing")
}

func TestTrimmedVisibilityStillIndexesKeywordFilters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vis.db")
	require.NoError(t, prepare(sqliteConfig(path)))
	_, err := tuneVisibility(context.Background(), path, Tuning{StockFTSTrigger: true})
	require.NoError(t, err)
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()
	// hookd's list queries filter its Keyword attributes and status.
	for _, where := range []string{"Keyword03 = 'x'", "status = 1", "workflow_id = 'dlv_x'"} {
		rows, err := db.Query(`EXPLAIN QUERY PLAN SELECT run_id FROM executions_visibility WHERE namespace_id = 'ns' AND ` + where)
		require.NoError(t, err)
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			require.NoError(t, rows.Scan(&id, &parent, &unused, &detail))
			plan = append(plan, detail)
		}
		require.NoError(t, rows.Close())
		require.Regexp(t, `USING (COVERING )?INDEX`, strings.Join(plan, "\n"), where)
	}
}

func TestQuietFTSTriggerKeepsFullTextInStep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vis.db")
	require.NoError(t, prepare(sqliteConfig(path)))
	_, err := tuneVisibility(context.Background(), path, Tuning{})
	require.NoError(t, err)
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	defer db.Close()

	var def string
	require.NoError(t, db.QueryRow(`SELECT sql FROM sqlite_master WHERE name = ?`, ftsUpdateTrigger).Scan(&def))
	require.Contains(t, def, "WHEN OLD.rowid IS NOT NEW.rowid OR OLD.Text01 IS NOT NEW.Text01")
	require.Contains(t, def, "OLD.KeywordList03 IS NOT NEW.KeywordList03")
	_, err = tuneVisibility(context.Background(), path, Tuning{})
	require.NoError(t, err)
	var again string
	require.NoError(t, db.QueryRow(`SELECT sql FROM sqlite_master WHERE name = ?`, ftsUpdateTrigger).Scan(&again))
	require.Equal(t, def, again, "a second start leaves the trigger alone")

	// The same upsert Temporal's ReplaceIntoVisibility runs, reduced.
	upsert := func(version, status int, sa string) {
		t.Helper()
		_, err := db.Exec(`INSERT INTO executions_visibility
			(namespace_id, run_id, _version, start_time, execution_time, workflow_id, workflow_type_name, status, encoding, search_attributes)
			VALUES ('ns', 'run', ?, '2026-01-01 00:00:00+00:00', '2026-01-01 00:00:00+00:00', 'wf', 'Delivery', ?, 'proto3', ?)
			ON CONFLICT (namespace_id, run_id) DO UPDATE SET _version = excluded._version, status = excluded.status, search_attributes = excluded.search_attributes
			WHERE executions_visibility._version < excluded._version`, version, status, sa)
		require.NoError(t, err)
	}
	// The keyword-list table splits only on '♡': a JSON list is one token.
	matches := func(table, query string) int {
		t.Helper()
		var n int
		require.NoError(t, db.QueryRow(`SELECT count(*) FROM `+table+` WHERE `+table+` MATCH ?`, query).Scan(&n))
		return n
	}
	intact := func() {
		t.Helper()
		for _, table := range []string{"executions_visibility_fts_text", "executions_visibility_fts_keyword_list"} {
			_, err := db.Exec(`INSERT INTO ` + table + `(` + table + `) VALUES ('integrity-check')`)
			require.NoError(t, err, table)
		}
	}

	upsert(1, 1, `{"Text01": "alpha", "KeywordList01": ["k1"]}`)
	upsert(2, 2, `{"Text01": "alpha", "KeywordList01": ["k1"]}`) // close: no full-text change
	intact()
	require.Equal(t, 1, matches("executions_visibility_fts_text", "alpha"))
	require.Equal(t, 1, matches("executions_visibility_fts_keyword_list", `"[""k1""]"`))

	upsert(3, 2, `{"Text01": "beta", "KeywordList01": ["k2"]}`) // a change still reaches the index
	intact()
	require.Equal(t, 0, matches("executions_visibility_fts_text", "alpha"))
	require.Equal(t, 1, matches("executions_visibility_fts_text", "beta"))
	require.Equal(t, 0, matches("executions_visibility_fts_keyword_list", `"[""k1""]"`))
	require.Equal(t, 1, matches("executions_visibility_fts_keyword_list", `"[""k2""]"`))
}
