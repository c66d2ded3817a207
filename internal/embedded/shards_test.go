package embedded_test

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/embedded"
	"github.com/hookd/hookd/internal/testkit"
)

// New persistence takes the history shard count asked for; existing
// persistence keeps its own when none is asked for, and a count asked
// for that differs stops the server with an error naming both. A second
// server on the data dir while one runs is refused; once it stops, the
// next starts.
func TestHistoryShards(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Temporal; skipped with -short")
	}
	dir := filepath.Join(t.TempDir(), "temporal")
	start := func(shards int) (*embedded.Server, error) {
		return embedded.Start(embedded.Options{DataDir: dir, FrontendAddr: testkit.FreeAddr(t), Namespace: "default", HistoryShards: shards,
			SearchAttributes: delivery.SearchAttributes(), LogLevel: slog.LevelError,
			Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))})
	}
	srv, err := start(2)
	require.NoError(t, err)
	require.Equal(t, 2, srv.HistoryShards())
	srv.Stop()

	srv, err = start(0)
	require.NoError(t, err)
	require.Equal(t, 2, srv.HistoryShards(), "existing persistence keeps its count")
	_, err = start(0)
	require.ErrorIs(t, err, embedded.ErrDataDirInUse, "a second server on the same data dir")
	srv.Stop()

	_, err = start(3)
	require.ErrorContains(t, err, "created with 2 history shards, not 3")
}
