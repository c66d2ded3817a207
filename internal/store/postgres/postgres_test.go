package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/pgtest"
	"github.com/hookd/hookd/internal/store/postgres"
	"github.com/hookd/hookd/internal/store/storetest"
)

// TestConformance runs the suite on one throwaway server, each case in a
// fresh schema.
func TestConformance(t *testing.T) {
	server := pgtest.Start(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := postgres.Open(context.Background(), pgtest.NewSchema(t, server), storetest.Key(t))
		require.NoError(t, err)
		return s
	})

	t.Run("ConcurrentOpenMigratesOnce", func(t *testing.T) {
		dsn := pgtest.NewSchema(t, server)
		key := storetest.Key(t)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				s, err := postgres.Open(context.Background(), dsn, key)
				if assert.NoError(t, err) {
					assert.NoError(t, s.Close())
				}
			})
		}
		wg.Wait()
	})

	t.Run("MatchingAcrossProcesses", func(t *testing.T) {
		dsn := pgtest.NewSchema(t, server)
		key := storetest.Key(t)
		writer, err := postgres.Open(context.Background(), dsn, key)
		require.NoError(t, err)
		defer writer.Close()
		reader, err := postgres.Open(context.Background(), dsn, key)
		require.NoError(t, err)
		defer reader.Close()
		storetest.CheckMatchingSeesChanges(t, writer, reader)
	})

	t.Run("UnreachableServer", func(t *testing.T) {
		_, err := postgres.Open(context.Background(), "postgres://hookd:pw-not-in-errors@127.0.0.1:1/x?sslmode=disable&connect_timeout=2", storetest.Key(t))
		require.Error(t, err)
		require.NotContains(t, err.Error(), "pw-not-in-errors")
	})
}
