package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/store/storetest"
)

func BenchmarkDeliveryRead(b *testing.B) {
	s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "hookd.db"), storetest.Key(b))
	require.NoError(b, err)
	defer s.Close()
	storetest.BenchmarkDeliveryRead(b, s)
}

func BenchmarkClaimEvent(b *testing.B) {
	s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "hookd.db"), storetest.Key(b))
	require.NoError(b, err)
	defer s.Close()
	storetest.BenchmarkClaimEvent(b, s)
}
