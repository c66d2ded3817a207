package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// starter starts the deliveries of a few events (one unless batching) and
// returns once they are accepted: the API's 202, or ExecuteWorkflow's return.
type starter func(ctx context.Context, ids []string) error

// sends records, per event, when its start was sent and when it was
// accepted (zero if it never was).
type sends struct {
	sent, accepted []time.Time
	errors         atomic.Int64 // failed tries, retried
}

func newSends(n int) *sends {
	return &sends{sent: make([]time.Time, n), accepted: make([]time.Time, n)}
}

// retries bounds the tries of one start; an overloaded server may refuse.
const retries = 5

// do starts ids[lo:hi] and records the times, retrying refused starts.
func (s *sends) do(ctx context.Context, start starter, ids []string, lo, hi int) {
	t0 := time.Now()
	for try := 0; try < retries && ctx.Err() == nil; try++ {
		if err := start(ctx, ids[lo:hi]); err != nil {
			s.errors.Add(1)
			time.Sleep(50 * time.Millisecond << try)
			continue
		}
		t1 := time.Now()
		for i := lo; i < hi; i++ {
			s.sent[i], s.accepted[i] = t0, t1
		}
		return
	}
	for i := lo; i < hi; i++ {
		s.sent[i] = t0
	}
}

// saturate starts all ids from `clients` concurrent clients, each starting
// the next `batch` events as soon as its previous start was accepted.
func saturate(ctx context.Context, start starter, ids []string, clients, batch int) *sends {
	s := newSends(len(ids))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for ctx.Err() == nil {
				hi := int(next.Add(int64(batch)))
				lo := hi - batch
				if lo >= len(ids) {
					return
				}
				s.do(ctx, start, ids, lo, min(hi, len(ids)))
			}
		})
	}
	wg.Wait()
	return s
}

// paced starts one event every 1/rate seconds, whatever the previous ones
// are doing (an open loop, so a slow start does not hide later latency).
func paced(ctx context.Context, start starter, ids []string, rate float64) *sends {
	s := newSends(len(ids))
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	var wg sync.WaitGroup
	for i := range ids {
		if i > 0 {
			select {
			case <-ctx.Done():
				wg.Wait()
				return s
			case <-tick.C:
			}
		}
		wg.Go(func() { s.do(ctx, start, ids, i, i+1) })
	}
	wg.Wait()
	return s
}
