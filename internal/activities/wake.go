package activities

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/wake"
)

// wakeHeartbeat is how often a page of a wake-up reports its progress;
// well within the workflow's heartbeat timeout, whatever the pace.
const wakeHeartbeat = 5 * time.Second

// WakePage wakes one page of an endpoint's waiting deliveries for the
// wake-up workflow (wake.Page). It heartbeats how far it got, and a retry
// (the worker died, Temporal was briefly unavailable) resumes after that.
func (a *Activities) WakePage(ctx context.Context, in delivery.WakePageInput) (delivery.WakePageResult, error) {
	if activity.HasHeartbeatDetails(ctx) {
		var c delivery.WakeCursor
		if err := activity.GetHeartbeatDetails(ctx, &c); err == nil && c.WorkflowID != "" {
			in.Cursor, in.Immediate = &c, 0
		}
	}
	var (
		mu     sync.Mutex
		latest *delivery.WakeCursor
	)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(wakeHeartbeat)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				mu.Lock()
				c := latest
				mu.Unlock()
				if c != nil {
					activity.RecordHeartbeat(ctx, *c)
				} else {
					activity.RecordHeartbeat(ctx)
				}
			}
		}
	}()
	res, err := wake.Page(ctx, a.temporal, in, func(c delivery.WakeCursor) {
		mu.Lock()
		defer mu.Unlock()
		latest = &c
	})
	if err != nil {
		mu.Lock()
		defer mu.Unlock()
		if latest != nil {
			activity.RecordHeartbeat(ctx, *latest) // the retry resumes after it
		}
		return res, err
	}
	return res, nil
}

// TakesAttempts reports whether endpointID takes attempts now, for the
// wake-up's second look. A deleted endpoint takes none.
func (a *Activities) TakesAttempts(ctx context.Context, endpointID string) (bool, error) {
	ep, err := a.endpoints.GetEndpoint(ctx, endpointID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("load endpoint %s: %w", endpointID, err)
	}
	b, err := a.endpoints.Circuit(ctx, endpointID)
	if err != nil {
		return false, fmt.Errorf("read circuit of %s: %w", endpointID, err)
	}
	return circuit.TakesAttempts(ep.Enabled, false, b, a.circuit, a.now()).Flowing(), nil
}
