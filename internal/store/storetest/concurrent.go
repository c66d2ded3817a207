package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// testConcurrent runs the delivery activity's reads (endpoint and secrets)
// while other goroutines update, rotate, create and delete, and checks that
// every read sees a consistent endpoint and that every write lands.
func testConcurrent(t *testing.T, s store.Store) {
	ctx := context.Background()
	const (
		endpoints = 4
		readers   = 8
		reads     = 40
		rotations = 10
	)
	for i := range endpoints {
		create(t, s, newEndpoint(fmt.Sprintf("ep_conc_%d", i), time.Duration(i)*time.Second))
	}

	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			for n := range reads {
				id := fmt.Sprintf("ep_conc_%d", (r+n)%endpoints)
				ep, err := s.GetEndpoint(ctx, id)
				if !assert.NoError(t, err) {
					return
				}
				assert.Equal(t, id, ep.ID)
				secrets, err := s.Secrets(ctx, id, at(2*time.Minute))
				if !assert.NoError(t, err) || !assert.NotEmpty(t, secrets) {
					return
				}
				for i := 1; i < len(secrets); i++ {
					assert.False(t, secrets[i].CreatedAt.After(secrets[i-1].CreatedAt), "newest first")
				}
				_, err = s.MatchingEndpoints(ctx, "", "order.created")
				assert.NoError(t, err)
			}
		})
	}
	for i := range endpoints {
		id := fmt.Sprintf("ep_conc_%d", i)
		wg.Go(func() {
			for n := range rotations {
				assert.NoError(t, s.RotateSecret(ctx, id, secretFor(id, n+1), at(time.Minute+time.Duration(n+1)*time.Millisecond), time.Hour))
				ep := newEndpoint(id, time.Duration(i)*time.Second)
				ep.Description = fmt.Sprintf("update %d", n)
				assert.NoError(t, s.UpdateEndpoint(ctx, ep))
			}
		})
	}
	wg.Go(func() {
		for n := range rotations {
			id := fmt.Sprintf("ep_churn_%d", n)
			if assert.NoError(t, s.CreateEndpoint(ctx, newEndpoint(id, time.Hour), secretFor(id, 0))) {
				assert.NoError(t, s.DeleteEndpoint(ctx, id))
			}
		}
	})
	wg.Wait()

	all, _, err := s.ListEndpoints(ctx, store.AllTenants, store.Page{})
	require.NoError(t, err)
	require.Len(t, all, endpoints, "the churned endpoints are gone")
	for _, ep := range all {
		require.Equal(t, fmt.Sprintf("update %d", rotations-1), ep.Description)
		secrets := secretsAt(t, s, ep.ID, at(2*time.Minute))
		require.Len(t, secrets, rotations+1, "every rotation landed and the overlap keeps them all")
		require.Equal(t, secretFor(ep.ID, rotations), secrets[0].Value)
	}
}
