package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/store/storetest"
)

func endpoint(id string) *store.Endpoint {
	now := time.Now()
	return &store.Endpoint{ID: id, URL: "https://example.com", Enabled: true, CreatedAt: now, UpdatedAt: now}
}

func TestReopenKeepsDataAndUsesWAL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data", "hookd.db")
	key := storetest.Key(t)
	s, err := sqlite.Open(ctx, path, key)
	require.NoError(t, err)
	require.NoError(t, s.CreateEndpoint(ctx, endpoint("ep_1"), "whsec_one"))
	require.FileExists(t, path+"-wal", "the database is in WAL mode")
	require.NoError(t, s.Close())

	s, err = sqlite.Open(ctx, path, key)
	require.NoError(t, err, "migrations are not applied twice")
	defer s.Close()
	secrets, err := s.Secrets(ctx, "ep_1", time.Now())
	require.NoError(t, err)
	require.Equal(t, "whsec_one", secrets[0].Value)
}

func TestWrongKeyFailsWithoutLeakingSecret(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hookd.db")
	s, err := sqlite.Open(ctx, path, storetest.Key(t))
	require.NoError(t, err)
	require.NoError(t, s.CreateEndpoint(ctx, endpoint("ep_1"), "whsec_topsecret"))
	require.NoError(t, s.Close())

	s, err = sqlite.Open(ctx, path, storetest.Key(t))
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Secrets(ctx, "ep_1", time.Now())
	require.ErrorContains(t, err, "decrypt")
	require.NotContains(t, err.Error(), "topsecret")
}

func TestOpenRefusesNewerSchemaAndBadInput(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hookd.db")
	s, err := sqlite.Open(ctx, path, storetest.Key(t))
	require.NoError(t, err)
	require.NoError(t, s.Close())

	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO hookd_schema_migrations (version, applied_at) VALUES (999, 0)`)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, err = sqlite.Open(ctx, path, storetest.Key(t))
	require.ErrorContains(t, err, "newer than this hookd")

	_, err = sqlite.Open(ctx, filepath.Join(t.TempDir(), "x.db"), []byte("short"))
	require.ErrorContains(t, err, "want 32")
	_, err = sqlite.Open(ctx, "what?.db", storetest.Key(t))
	require.Error(t, err)
}

func TestDatabaseFileIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	s, err := sqlite.Open(context.Background(), filepath.Join(dir, "hookd.db"), storetest.Key(t))
	require.NoError(t, err)
	defer s.Close()
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), "Open creates the data directory private")
}
