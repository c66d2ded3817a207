package wake

import (
	"cmp"
	"time"

	"context"

	"github.com/hookd/hookd/internal/delivery"
)

// PageSize is the most deliveries one page of a wake-up wakes: at the
// drain's pace (about 110 a second on two cores) a page takes seconds,
// so a worker that dies mid-page costs a retry of one page, not of the
// backlog.
const PageSize = 1000

// Page wakes one page of in.EndpointID's waiting deliveries: those after
// in.Cursor, oldest first, up to in.Max (PageSize if zero). A first page
// (no cursor) that finds the whole backlog within in.Immediate signals it
// all, each delivery at its slot of Window after in.Signal.NotBefore;
// otherwise the page is paced with recover updates (Backlog.Pace).
// progress, if set, is told the cursor each time the deliveries done
// from the page's first on grow, so a retried page resumes after them.
func Page(ctx context.Context, c Updater, in delivery.WakePageInput, progress func(delivery.WakeCursor)) (delivery.WakePageResult, error) {
	waiting, err := listAfter(ctx, c, QueryFor(in.EndpointID, in.Signal, time.Now()), in.Cursor)
	if err != nil {
		return delivery.WakePageResult{}, err
	}
	if len(waiting) == 0 {
		return delivery.WakePageResult{Cursor: in.Cursor}, nil
	}
	if in.Cursor == nil && len(waiting) <= in.Immediate && !in.Signal.Slots {
		n, err := waiting.Signal(ctx, c, in.Signal, in.Signal.NotBefore)
		return delivery.WakePageResult{Woken: n, Cursor: waiting[len(waiting)-1].cursor()}, err
	}
	page := waiting[:min(len(waiting), cmp.Or(in.Max, PageSize))]
	sig := in.Signal
	sig.NotBefore = time.Time{} // each as soon as its update goes
	var report func(int)
	if progress != nil {
		report = func(done int) { progress(*page[done-1].cursor()) }
	}
	n, err := page.Pace(ctx, c, sig, report)
	return delivery.WakePageResult{Woken: n, Cursor: page[len(page)-1].cursor(), More: len(waiting) > len(page)}, err
}
