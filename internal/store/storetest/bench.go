package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// BenchmarkDeliveryRead measures what the delivery activity does on every
// attempt, in parallel: load an endpoint and its secrets (two, as during a
// rotation) from s, which holds a few endpoints.
func BenchmarkDeliveryRead(b *testing.B, s store.Store) {
	ctx := context.Background()
	now := time.Now()
	for i := range 3 {
		ep := newEndpoint(fmt.Sprintf("ep_%d", i), 0, "order.*")
		if err := s.CreateEndpoint(ctx, ep, secretFor(ep.ID, 0)); err != nil {
			b.Fatal(err)
		}
		if err := s.RotateSecret(ctx, ep.ID, secretFor(ep.ID, 1), now, time.Hour); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.GetEndpoint(ctx, "ep_1"); err != nil {
				b.Error(err)
				return
			}
			if secrets, err := s.Secrets(ctx, "ep_1", now); err != nil || len(secrets) != 2 {
				b.Error(err, len(secrets))
				return
			}
		}
	})
}
