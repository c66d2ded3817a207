package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Temporal's PostgreSQL visibility schema derives some 60 columns of
// executions_visibility from its search_attributes JSON, one per search
// attribute a query could filter on, each a stored generated column.
// PostgreSQL prepares every generated column's expression again for
// each statement that writes the table, and a delivery's visibility
// writes are single-row statements (its start and close): that
// preparation took about half of each write's time (docs/performance.md).
// The embedded server turns those columns into plain ones that a
// trigger fills from the same expressions, prepared once per connection,
// so that each row holds what Temporal's schema would have computed.

const (
	// pgFilledColumns is the table, in the visibility database, where
	// the embedded server records each generated column it made plain,
	// with the expression that generated it.
	pgFilledColumns = "hookd_filled_visibility_columns"
	// pgFillFunction names the trigger and its function that fill the
	// recorded columns on every insert and update.
	pgFillFunction = "hookd_fill_visibility_columns"
)

// searchAttributesRef matches the column the generated expressions read.
var searchAttributesRef = regexp.MustCompile(`\bsearch_attributes\b`)

// fillPostgresVisibilityColumns makes every stored generated column of
// executions_visibility whose expression reads only search_attributes a
// plain column, recorded with its expression in pgFilledColumns, and
// (re)creates the trigger that fills every recorded column before each
// insert and update. All in one transaction, so no row is written
// between the change and the trigger. Idempotent; it returns the number
// of columns made plain.
func fillPostgresVisibilityColumns(ctx context.Context, db *sql.DB) (filled int, err error) {
	if err := createRecordTable(ctx, db, pgFilledColumns, "expression"); err != nil {
		return 0, err
	}
	err = inTx(ctx, db, func(tx *sql.Tx) error {
		generated, err := generatedColumns(ctx, tx)
		if err != nil {
			return err
		}
		for _, c := range generated {
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+pgFilledColumns+` (name, expression) VALUES ($1, $2)
				ON CONFLICT (name) DO UPDATE SET expression = excluded.expression`, c.name, c.expr); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `ALTER TABLE executions_visibility ALTER COLUMN `+quoteIdent(c.name)+` DROP EXPRESSION`); err != nil {
				return err
			}
		}
		filled = len(generated)
		// A recorded column a schema update dropped is forgotten.
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+pgFilledColumns+` f WHERE NOT EXISTS (
			SELECT 1 FROM pg_attribute a WHERE a.attrelid = 'executions_visibility'::regclass
			  AND a.attname = f.name AND a.attnum > 0 AND NOT a.attisdropped)`); err != nil {
			return err
		}
		return createFillTrigger(ctx, tx)
	})
	if err != nil {
		return 0, fmt.Errorf("fill visibility columns by trigger: %w", err)
	}
	return filled, nil
}

// restorePostgresVisibilityColumns makes every recorded column a stored
// generated column again, with its recorded expression, and drops the
// trigger: before a schema update (Temporal's scripts expect its own
// schema) and for good when the tuning keeps the schema as shipped.
// PostgreSQL cannot give a plain column an expression back, so each is
// dropped and added again, which rewrites the table; the indexes on
// those columns are created again with their definitions. It returns
// the number restored.
func restorePostgresVisibilityColumns(ctx context.Context, db *sql.DB) (restored int, err error) {
	if err := createRecordTable(ctx, db, pgFilledColumns, "expression"); err != nil {
		return 0, err
	}
	err = inTx(ctx, db, func(tx *sql.Tx) error {
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT to_regclass('executions_visibility') IS NOT NULL`).Scan(&exists); err != nil || !exists {
			return err // a new database: its schema is still to come
		}
		if _, err := tx.ExecContext(ctx, `DROP TRIGGER IF EXISTS `+pgFillFunction+` ON executions_visibility`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DROP FUNCTION IF EXISTS `+pgFillFunction+`()`); err != nil {
			return err
		}
		cols, err := filledColumns(ctx, tx)
		if err != nil || len(cols) == 0 {
			return err
		}
		indexes, err := indexesOn(ctx, tx, cols)
		if err != nil {
			return err
		}
		drops := make([]string, len(cols))
		adds := make([]string, len(cols))
		for i, c := range cols {
			drops[i] = "DROP COLUMN " + quoteIdent(c.name)
			adds[i] = fmt.Sprintf("ADD COLUMN %s %s GENERATED ALWAYS AS (%s) STORED", quoteIdent(c.name), c.typ, c.expr)
		}
		// Two statements: one cannot drop and add a column of one name.
		for _, stmt := range []string{strings.Join(drops, ", "), strings.Join(adds, ", ")} {
			if _, err := tx.ExecContext(ctx, `ALTER TABLE executions_visibility `+stmt); err != nil {
				return err
			}
		}
		for _, def := range indexes {
			if _, err := tx.ExecContext(ctx, def); err != nil {
				return err
			}
		}
		restored = len(cols)
		_, err = tx.ExecContext(ctx, `DELETE FROM `+pgFilledColumns)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("restore generated visibility columns: %w", err)
	}
	return restored, nil
}

// visibilityColumn is a column of executions_visibility: its name, its
// type as PostgreSQL writes it, and the expression that generates it.
type visibilityColumn struct{ name, typ, expr string }

// generatedColumns lists the stored generated columns of
// executions_visibility whose expressions read search_attributes and no
// other column.
func generatedColumns(ctx context.Context, tx *sql.Tx) ([]visibilityColumn, error) {
	return queryColumns(ctx, tx, `
		SELECT a.attname, format_type(a.atttypid, a.atttypmod), pg_get_expr(d.adbin, d.adrelid)
		FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE a.attrelid = 'executions_visibility'::regclass AND a.attgenerated = 's'
		  AND (SELECT array_agg(r.attname::text) FROM pg_depend dep
		       JOIN pg_attribute r ON r.attrelid = dep.refobjid AND r.attnum = dep.refobjsubid
		       WHERE dep.classid = 'pg_attrdef'::regclass AND dep.objid = d.oid
		         AND dep.refobjid = a.attrelid AND dep.deptype = 'n') = ARRAY['search_attributes']
		ORDER BY a.attnum`)
}

// filledColumns lists the recorded columns with their types now.
func filledColumns(ctx context.Context, tx *sql.Tx) ([]visibilityColumn, error) {
	return queryColumns(ctx, tx, `
		SELECT f.name, format_type(a.atttypid, a.atttypmod), f.expression
		FROM `+pgFilledColumns+` f JOIN pg_attribute a ON a.attname = f.name
		WHERE a.attrelid = 'executions_visibility'::regclass AND a.attnum > 0
		  AND NOT a.attisdropped AND a.attgenerated = ''
		ORDER BY a.attnum`)
}

func queryColumns(ctx context.Context, tx *sql.Tx, query string) ([]visibilityColumn, error) {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []visibilityColumn
	for rows.Next() {
		var c visibilityColumn
		if err := rows.Scan(&c.name, &c.typ, &c.expr); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// indexesOn returns the definitions of the indexes of
// executions_visibility on any of cols.
func indexesOn(ctx context.Context, tx *sql.Tx, cols []visibilityColumn) ([]string, error) {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	defs, err := namedDefinitions(ctx, tx, `
		SELECT DISTINCT c.relname, pg_get_indexdef(i.indexrelid)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		JOIN pg_depend dep ON dep.classid = 'pg_class'::regclass AND dep.objid = i.indexrelid
		JOIN pg_attribute a ON a.attrelid = dep.refobjid AND a.attnum = dep.refobjsubid
		WHERE i.indrelid = 'executions_visibility'::regclass AND dep.refobjid = i.indrelid
		  AND a.attname = ANY($1)`, names)
	return slices.Collect(maps.Values(defs)), err
}

// createFillTrigger (re)creates the function that sets each recorded
// column from its expression, read from the new row's
// search_attributes, and the trigger that runs it before every insert
// and update of a row.
func createFillTrigger(ctx context.Context, tx *sql.Tx) error {
	cols, err := filledColumns(ctx, tx)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("CREATE OR REPLACE FUNCTION " + pgFillFunction + "() RETURNS trigger LANGUAGE plpgsql AS $fill$\nBEGIN\n")
	for _, c := range cols {
		fmt.Fprintf(&b, "  NEW.%s := %s;\n", quoteIdent(c.name), searchAttributesRef.ReplaceAllString(c.expr, "NEW.search_attributes"))
	}
	b.WriteString("  RETURN NEW;\nEND\n$fill$")
	for _, stmt := range []string{
		b.String(),
		`DROP TRIGGER IF EXISTS ` + pgFillFunction + ` ON executions_visibility`,
		`CREATE TRIGGER ` + pgFillFunction + ` BEFORE INSERT OR UPDATE ON executions_visibility
			FOR EACH ROW EXECUTE FUNCTION ` + pgFillFunction + `()`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}
