package portal

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/store"
)

// BenchmarkOverview100Endpoints renders the Overview of a tenant with 100
// endpoints, each with a week of hourly stats (16,800 hourly rows), on a
// warm SQLite store: the page reads the stats once and each circuit once,
// and Temporal (unreachable here) only for the dead-letter count.
//
//	go test ./internal/portal -run '^$' -bench Overview -benchtime 20x
func BenchmarkOverview100Endpoints(b *testing.B) {
	f := newFixture(b)
	ctx := authz.NewContext(context.Background(), authz.ForTenant(f.tenant, "bench"))
	sq, ok := f.store.(interface {
		AddStats(context.Context, []store.StatsDelta) error
	})
	require.True(b, ok)
	now := time.Now().UTC()
	for i := range 99 {
		u := fmt.Sprintf("https://example.com/hooks/%d", i)
		var in api.EndpointCreate
		in.URL = u
		ep, err := f.portal.api.CreateEndpoint(ctx, in)
		require.NoError(b, err)
		var deltas []store.StatsDelta
		for h := range 7 * 24 {
			deltas = append(deltas, store.StatsDelta{EndpointID: ep.ID, Minute: now.Add(-time.Duration(h) * time.Hour),
				Attempts: 10, Successes: int64(10 - i%3), Retryable: int64(i % 3), Latency: make([]int64, store.LatencyBuckets)})
		}
		require.NoError(b, sq.AddStats(context.Background(), deltas))
	}
	c := f.signIn()
	get := func() *httptest.ResponseRecorder { return f.get("/portal/overview", c) }
	warm := get()
	require.Equal(b, http.StatusOK, warm.Code)
	require.Contains(b, warm.Body.String(), ">166320<", "a week of the 99 endpoints' hours, 10 attempts each, read from the stats")
	b.ResetTimer()
	for range b.N {
		if rec := get(); rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/page")
}
