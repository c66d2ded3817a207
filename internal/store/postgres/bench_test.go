package postgres_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store/pgtest"
	"github.com/hookd/hookd/internal/store/postgres"
	"github.com/hookd/hookd/internal/store/storetest"
)

func BenchmarkDeliveryRead(b *testing.B) {
	s, err := postgres.Open(context.Background(), pgtest.Start(b), storetest.Key(b))
	require.NoError(b, err)
	defer s.Close()
	storetest.BenchmarkDeliveryRead(b, s)
}

func BenchmarkClaimEvent(b *testing.B) {
	s, err := postgres.Open(context.Background(), pgtest.Start(b), storetest.Key(b))
	require.NoError(b, err)
	defer s.Close()
	storetest.BenchmarkClaimEvent(b, s)
}
