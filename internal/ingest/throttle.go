package ingest

import (
	"context"
	"time"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// minStartDelay is the shortest start delay worth a timer: a slot closer
// than this is waited out in the first attempt, which starts at once.
const minStartDelay = 25 * time.Millisecond

// reserveSlot reserves, for a delivery of a newly recorded event to a
// rate-limited endpoint (req to ep), its first attempt's slot: one store
// write, none for an unlimited endpoint. The delivery then starts delayed
// to just before its slot (startDelay), so a backlog behind the limit
// waits in Temporal without a task, a timer or a wake-up of its own, and
// learns its turn once. A reservation the store refuses is left to the
// attempt, which reserves its own.
func (p *Publisher) reserveSlot(ctx context.Context, req *delivery.Request, ep *store.Endpoint) {
	if p.Slots == nil || ep.RateLimit == nil {
		return
	}
	slot, err := p.Slots.ReserveSlot(ctx, ep.ID, *ep.RateLimit, time.Now())
	if err != nil {
		if p.Logger != nil {
			p.Logger.WarnContext(ctx, "reserve a rate limit slot at ingest", "endpoint_id", ep.ID, "error", err)
		}
		return
	}
	req.Slot = &delivery.Slot{At: slot.At, Since: slot.Since, Lead: ep.RateLimit.Lead()}
}

// startDelay is how long req's start waits for its slot at now: until its
// Lead before the slot, or not at all when that is within minStartDelay.
func startDelay(req delivery.Request, now time.Time) time.Duration {
	if req.Slot == nil {
		return 0
	}
	d := req.Slot.At.Add(-req.Slot.Lead).Sub(now)
	if d < minStartDelay {
		return 0
	}
	return d
}
