package pgtest_test

import (
	"database/sql"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/store/pgtest"
)

func TestStartServesAndIsolates(t *testing.T) {
	dsn := pgtest.Start(t)
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", u.Hostname())
	port, err := strconv.Atoi(u.Port())
	require.NoError(t, err)
	require.Less(t, port, 32768)

	db, err := sql.Open("pgx", pgtest.NewDatabase(t, dsn))
	require.NoError(t, err)
	defer db.Close()
	var name string
	require.NoError(t, db.QueryRow("SELECT current_database()").Scan(&name))
	require.Contains(t, name, "test_")

	schema, err := sql.Open("pgx", pgtest.NewSchema(t, dsn))
	require.NoError(t, err)
	defer schema.Close()
	_, err = schema.Exec("CREATE TABLE t (x int)")
	require.NoError(t, err)
	require.NoError(t, schema.QueryRow("SELECT table_schema FROM information_schema.tables WHERE table_name = 't'").Scan(&name))
	require.Contains(t, name, "test_", "unqualified tables go into the new schema")
}
