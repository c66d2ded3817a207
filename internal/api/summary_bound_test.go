package api

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// The dead-letter summary's visibility calls do not grow with the
// endpoints in scope: 2,000 endpoints cost what 3 do, whether their dead
// letters fit one page or not; past its bounds it says truncated.
func TestSummaryCostIgnoresEndpointCount(t *testing.T) {
	now := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	run := func(t *testing.T, endpoints, parked, withDead int) (calls int64, sum summaryOut) {
		vis := &fakeVisibility{t: t}
		for i := range parked {
			ep := fmt.Sprintf("ep_%04d", i%withDead)
			vis.execs = append(vis.execs, execution{delivery.WorkflowDeadLetter, ep, []string{"failed", "exhausted"}[i%2], now.Add(-time.Duration(i) * time.Second)})
		}
		s := newTestServer(t, &fakeTemporal{})
		st := s.store.(*fakeStore)
		for i := range endpoints {
			id := fmt.Sprintf("ep_%04d", i)
			st.endpoints[id] = &store.Endpoint{ID: id, CreatedAt: now.Add(time.Duration(i))}
		}
		s.temporal = vis
		s.store = listingStore{st}
		s.now = func() time.Time { return now }
		get(t, s, "/v1/dead-letters/summary", &sum)
		require.EqualValues(t, parked, sum.Total)
		return vis.calls.Load(), sum
	}
	for _, c := range []struct{ parked, withDead int }{{30, 3}, {3000, 3}} {
		t.Run(strconv.Itoa(c.parked), func(t *testing.T) {
			few, sumFew := run(t, 3, c.parked, c.withDead)
			many, sumMany := run(t, 2000, c.parked, c.withDead)
			t.Logf("%d dead letters on %d endpoints: %d visibility calls with 3 endpoints, %d with 2,000", c.parked, c.withDead, few, many)
			assert.Equal(t, few, many, "calls with 2,000 endpoints")
			assert.Equal(t, sumFew.Groups, sumMany.Groups)
			assert.Len(t, sumMany.Groups, 2*c.withDead)
			assert.False(t, sumMany.Truncated)
			var n int64
			for _, g := range sumMany.Groups {
				n += g.Count
			}
			assert.EqualValues(t, c.parked, n, "the groups add up to the total")
		})
	}
	t.Run("truncated", func(t *testing.T) {
		calls, sum := run(t, 2000, 4000, 2000)
		t.Logf("4,000 dead letters on 2,000 endpoints: %d visibility calls, %d groups", calls, len(sum.Groups))
		assert.True(t, sum.Truncated)
		assert.LessOrEqual(t, calls, int64(2+30+summaryMaxLists+2*summaryMaxEndpoints))
		assert.LessOrEqual(t, len(sum.Groups), 2*summaryMaxEndpoints)
	})
}

// summaryOut is the summary's answer.
type summaryOut = wire.DeadLetterSummary
