package embedded

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPostgresConfigsFromURL(t *testing.T) {
	main, vis, err := Postgres{URL: "postgres://temporal:s3cret@db.internal:6543/tmprl?sslmode=require"}.sqlConfigs()
	require.NoError(t, err)
	require.Equal(t, "postgres12_pgx", main.PluginName)
	require.Equal(t, "postgres12_pgx", vis.PluginName)
	require.Equal(t, "tmprl", main.DatabaseName)
	require.Equal(t, "tmprl_visibility", vis.DatabaseName)
	require.Equal(t, "db.internal:6543", main.ConnectAddr)
	require.Equal(t, "temporal", vis.User)
	require.Equal(t, "s3cret", vis.Password)
	require.Equal(t, map[string]string{"sslmode": "require"}, main.ConnectAttributes)
	require.Equal(t, pgMainMaxConns, main.MaxConns)
	require.Equal(t, pgVisibilityMaxConns, vis.MaxConns)

	main, vis, err = Postgres{URL: "postgres://u@localhost", VisibilityDatabase: "vis"}.sqlConfigs()
	require.NoError(t, err)
	require.Equal(t, "temporal", main.DatabaseName, "default database")
	require.Equal(t, "vis", vis.DatabaseName)
	require.Equal(t, "localhost:5432", main.ConnectAddr, "default port")

	for _, bad := range []string{"mysql://u@h/db", "postgres:///db", "postgres://u:s3cret@h/db\x7f", "postgres://u@h/same"} {
		p := Postgres{URL: bad}
		if bad == "postgres://u@h/same" {
			p.VisibilityDatabase = "same"
		}
		_, _, err := p.sqlConfigs()
		require.Error(t, err, bad)
		require.NotContains(t, err.Error(), "s3cret", "errors never repeat the password")
	}
}

func TestPostgresRedactedMasksThePassword(t *testing.T) {
	got := Postgres{URL: "postgres://temporal:s3cret@db:5432/temporal?sslmode=disable"}.Redacted()
	require.NotContains(t, got, "s3cret")
	require.Contains(t, got, "temporal:xxxxx@db:5432/temporal")
}
