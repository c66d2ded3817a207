package bench

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// pgSettle is how long after a phase its PostgreSQL counts are read: a
// delivery's workflow task timeout fires 10 s after its start, and an
// idle backend reports its counts within 10 s.
const pgSettle = 12 * time.Second

// pgCounts is what PostgreSQL's statistics count for one database: its
// transactions (committed and rolled back; a statement outside a
// transaction is one) and the rows its queries returned.
type pgCounts struct{ Xacts, Rows int64 }

// pgStats reads pg_stat_database for every database of the server at
// url. Backends report their counts when they go idle, at most once a
// second: a snapshot taken right after a phase misses up to a second of
// it.
func pgStats(ctx context.Context, url string) (map[string]pgCounts, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("postgres statistics: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT datname, xact_commit + xact_rollback, tup_returned
		FROM pg_stat_database WHERE datname IS NOT NULL`)
	if err != nil {
		return nil, fmt.Errorf("postgres statistics: %w", err)
	}
	defer rows.Close()
	out := map[string]pgCounts{}
	for rows.Next() {
		var name string
		var c pgCounts
		if err := rows.Scan(&name, &c.Xacts, &c.Rows); err != nil {
			return nil, fmt.Errorf("postgres statistics: %w", err)
		}
		out[name] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres statistics: %w", err)
	}
	return out, nil
}

// pgCountsBetween is after less before for each database that did work;
// reader's loses the transaction that read before.
func pgCountsBetween(before, after map[string]pgCounts, reader string) map[string]pgCounts {
	out := map[string]pgCounts{}
	for db, a := range after {
		b := before[db]
		d := pgCounts{Xacts: a.Xacts - b.Xacts, Rows: a.Rows - b.Rows}
		if db == reader {
			d.Xacts--
		}
		if d.Xacts > 0 {
			out[db] = d
		}
	}
	return out
}

// formatCounts lists counts per delivery by database, "temporal 21.3 /
// 40.1, postgres 4.0 / 2.0" (transactions / rows), most transactions
// first.
func formatCounts(counts map[string]pgCounts, deliveries int) string {
	if len(counts) == 0 || deliveries == 0 {
		return "-"
	}
	names := make([]string, 0, len(counts))
	for db := range counts {
		names = append(names, db)
	}
	slices.SortFunc(names, func(a, b string) int { return int(counts[b].Xacts - counts[a].Xacts) })
	n := float64(deliveries)
	parts := make([]string, len(names))
	for i, db := range names {
		c := counts[db]
		parts[i] = fmt.Sprintf("%s %.1f / %.1f", db, float64(c.Xacts)/n, float64(c.Rows)/n)
	}
	return strings.Join(parts, ", ")
}
