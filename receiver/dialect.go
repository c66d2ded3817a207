package receiver

import (
	"fmt"
	"strconv"
	"strings"
)

// Dialect names the SQL flavour of the inbox database. The kit writes
// portable SQL (ON CONFLICT, RETURNING, integer unix-millisecond times);
// the dialect only changes placeholders, a few column types and row locking.
type Dialect string

// Supported dialects.
const (
	// SQLite is for modernc.org/sqlite or any SQLite 3.35+ driver.
	SQLite Dialect = "sqlite"
	// Postgres is for PostgreSQL drivers using $1 placeholders (pgx, lib/pq).
	Postgres Dialect = "postgres"
)

func (d Dialect) validate() error {
	switch d {
	case SQLite, Postgres:
		return nil
	}
	return fmt.Errorf("unknown SQL dialect %q", string(d))
}

// rebind rewrites the kit's "?" placeholders for d. The kit's own queries
// never contain a literal question mark.
func (d Dialect) rebind(query string) string {
	if d != Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// types returns the column types for (blob, auto-increment key).
func (d Dialect) types() (blob, serial string) {
	if d == Postgres {
		return "BYTEA", "BIGSERIAL PRIMARY KEY"
	}
	return "BLOB", "INTEGER PRIMARY KEY AUTOINCREMENT"
}

// skipLocked is appended to the claim subquery so concurrent PostgreSQL
// workers pass over each other's rows; SQLite has a single writer anyway.
func (d Dialect) skipLocked() string {
	if d == Postgres {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}
