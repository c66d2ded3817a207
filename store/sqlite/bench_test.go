package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/store/sqlite"
)

// BenchmarkDeliveryRead measures what the delivery activity does on every
// attempt: load the endpoint and its secrets.
func BenchmarkDeliveryRead(b *testing.B) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "hookd.db"), testKey(b))
	require.NoError(b, err)
	defer s.Close()
	for _, id := range []string{"ep_1", "ep_2", "ep_3"} {
		ep := endpoint(id)
		ep.EventTypes = []string{"order.*"}
		require.NoError(b, s.CreateEndpoint(ctx, ep, "whsec_c2VjcmV0LXZhbHVlLWZvci1iZW5jaG1hcms="))
		require.NoError(b, s.RotateSecret(ctx, id, "whsec_bmV3LXNlY3JldC12YWx1ZS1mb3ItYmVuY2g=", time.Now(), time.Hour))
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.GetEndpoint(ctx, "ep_2"); err != nil {
				b.Error(err)
				return
			}
			if _, err := s.Secrets(ctx, "ep_2", time.Now()); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
