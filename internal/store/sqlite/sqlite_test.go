package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "hookd.db"), storetest.Key(t))
		require.NoError(t, err)
		return s
	})
}

// Two processes on one database file: each sees the other's endpoint
// changes at its next match.
func TestMatchingAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hookd.db")
	key := storetest.Key(t)
	writer, err := sqlite.Open(context.Background(), path, key)
	require.NoError(t, err)
	defer writer.Close()
	reader, err := sqlite.Open(context.Background(), path, key)
	require.NoError(t, err)
	defer reader.Close()
	storetest.CheckMatchingSeesChanges(t, writer, reader)
}
