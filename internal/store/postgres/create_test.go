package postgres_test

import (
	"context"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/pgtest"
	"github.com/hookd/hookd/internal/store/postgres"
	"github.com/hookd/hookd/internal/store/storetest"
)

// TestOpenCreatesAMissingDatabase: hookd serve's first start on a new
// PostgreSQL server creates the endpoint store's database, even when
// several processes start at once.
func TestOpenCreatesAMissingDatabase(t *testing.T) {
	u, err := url.Parse(pgtest.Start(t))
	require.NoError(t, err)
	u.Path = "/hookd_endpoints_new"
	key := storetest.Key(t)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			s, err := postgres.Open(context.Background(), u.String(), key)
			if assert.NoError(t, err) {
				_, err = s.GetEndpoint(context.Background(), "ep_missing")
				assert.ErrorIs(t, err, store.ErrNotFound, "the new database has the store's tables")
				assert.NoError(t, s.Close())
			}
		})
	}
	wg.Wait()
}
