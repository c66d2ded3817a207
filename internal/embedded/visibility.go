package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// keptVisibilityIndexes are the indexes of Temporal's visibility table
// that the embedded server keeps, in SQLite and PostgreSQL: the ones
// behind hookd's own list queries (its custom attributes are all Keyword
// columns), the Web UI's default views (time order, workflow ID, type,
// status, parent and root), batch operations and schedules.
//
// Temporal's schema creates 58 indexes on that one table in SQLite, 73 in
// PostgreSQL, one per column a query could filter on. Every visibility
// write (two per delivery: start and close) maintains all of them, and in
// SQLite the cost of compiling the REPLACE statement grows with them
// (docs/performance.md).
// Dropping an index never changes a query's answer; a filter on a dropped
// column (say Int01, or HistoryLength) scans instead.
var keptVisibilityIndexes = map[string]bool{
	"default_idx":                    true,
	"by_workflow_id":                 true,
	"by_workflow_type":               true,
	"by_status":                      true,
	"by_parent_workflow_id":          true,
	"by_root_workflow_id":            true,
	"by_temporal_namespace_division": true,
	"by_temporal_scheduled_by_id":    true,
	"by_keyword_01":                  true,
	"by_keyword_02":                  true,
	"by_keyword_03":                  true,
	"by_keyword_04":                  true,
	"by_keyword_05":                  true,
	"by_keyword_06":                  true,
	"by_keyword_07":                  true,
	"by_keyword_08":                  true,
	"by_keyword_09":                  true,
	"by_keyword_10":                  true,
}

// tuneVisibility trims the visibility file's schema as t allows: it drops
// every index not in keptVisibilityIndexes and makes the full-text update
// trigger conditional. Both are idempotent and run on every start, so a
// data directory created by an older hookd gets the same schema. It
// returns the number of indexes dropped.
func tuneVisibility(ctx context.Context, path string, t Tuning) (dropped int, err error) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return 0, fmt.Errorf("open visibility db: %w", err)
	}
	defer db.Close()
	if !t.AllVisibilityIndexes {
		if dropped, err = dropUnusedIndexes(ctx, db); err != nil {
			return dropped, err
		}
	}
	if !t.StockFTSTrigger {
		if err := quietFTSUpdateTrigger(ctx, db); err != nil {
			return dropped, err
		}
	}
	return dropped, nil
}

func dropUnusedIndexes(ctx context.Context, db *sql.DB) (dropped int, err error) {
	rows, err := db.QueryContext(ctx,
		`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'executions_visibility' AND sql IS NOT NULL`)
	if err != nil {
		return 0, fmt.Errorf("list visibility indexes: %w", err)
	}
	var drop []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return 0, fmt.Errorf("list visibility indexes: %w", err)
		}
		if !keptVisibilityIndexes[name] {
			drop = append(drop, name)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("list visibility indexes: %w", err)
	}
	for _, name := range drop {
		// Names come from sqlite_master; quote them as identifiers anyway.
		stmt := `DROP INDEX IF EXISTS "` + strings.ReplaceAll(name, `"`, `""`) + `"`
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return dropped, fmt.Errorf("drop visibility index %s: %w", name, err)
		}
		dropped++
	}
	return dropped, nil
}

// ftsUpdateTrigger keeps the full-text tables of the visibility table in
// step with its rows on UPDATE.
const ftsUpdateTrigger = "executions_visibility_au"

// ftsTriggerCondition marks a trigger already rewritten by
// quietFTSUpdateTrigger.
const ftsTriggerCondition = "-- hookd: only when a full-text column changes\n"

var newColumn = regexp.MustCompile(`NEW\.(\w+)`)

// quietFTSUpdateTrigger rewrites Temporal's update trigger so that it runs
// only when a full-text column (Text or KeywordList attributes, build IDs,
// change versions) changes. As shipped it deletes and re-inserts the row in
// both full-text tables on every update, which is every delivery's close
// record; when no such column changed that work leaves the tables exactly
// as they were, so skipping it changes no query's answer. The condition is
// built from the columns the trigger itself copies, so it follows the
// schema. Idempotent.
func quietFTSUpdateTrigger(ctx context.Context, db *sql.DB) error {
	var def string
	err := db.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`, ftsUpdateTrigger).Scan(&def)
	switch {
	case err == sql.ErrNoRows:
		return nil // a schema without full-text tables
	case err != nil:
		return fmt.Errorf("read visibility trigger: %w", err)
	case strings.Contains(def, ftsTriggerCondition):
		return nil
	}
	head, body, ok := strings.Cut(def, "BEGIN")
	if !ok {
		return fmt.Errorf("visibility trigger %s: no BEGIN", ftsUpdateTrigger)
	}
	var cols []string
	for _, m := range newColumn.FindAllStringSubmatch(body, -1) {
		if !slices.Contains(cols, m[1]) {
			cols = append(cols, m[1])
		}
	}
	if len(cols) == 0 {
		return fmt.Errorf("visibility trigger %s: no columns", ftsUpdateTrigger)
	}
	conds := make([]string, len(cols))
	for i, c := range cols {
		conds[i] = "OLD." + c + " IS NOT NEW." + c
	}
	rewritten := strings.TrimSpace(head) + "\n" + ftsTriggerCondition + "WHEN " + strings.Join(conds, " OR ") + "\nBEGIN" + body
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("rewrite visibility trigger: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DROP TRIGGER `+ftsUpdateTrigger); err != nil {
		return fmt.Errorf("rewrite visibility trigger: %w", err)
	}
	if _, err := tx.ExecContext(ctx, rewritten); err != nil {
		return fmt.Errorf("rewrite visibility trigger: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("rewrite visibility trigger: %w", err)
	}
	return nil
}
