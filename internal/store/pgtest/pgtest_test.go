package pgtest_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store/pgtest"
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

func TestStartServerOutsideATest(t *testing.T) {
	srv, err := pgtest.StartServer()
	if err != nil && os.Getenv(pgtest.SkipEnv) == "1" {
		t.Skipf("%v (%s=1)", err, pgtest.SkipEnv)
	}
	require.NoError(t, err)
	pid, err := srv.PID()
	require.NoError(t, err)
	_, err = os.Stat(fmt.Sprintf("/proc/%d", pid))
	require.NoError(t, err, "the postmaster runs")

	db, err := sql.Open("pgx", srv.URL)
	require.NoError(t, err)
	require.NoError(t, db.Ping())
	require.NoError(t, db.Close())

	require.NoError(t, srv.Stop())
	// Gone, or a zombie where nothing reaps orphans.
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.True(t, os.IsNotExist(err) || strings.Contains(string(stat), ") Z "), "the postmaster stopped: %s", stat)
}
