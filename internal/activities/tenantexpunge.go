package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// EventRecords is what the tenant expunge job reads and changes of the
// event records (the endpoint store).
type EventRecords interface {
	ListEvents(ctx context.Context, f store.EventFilter, p store.Page) ([]*store.Event, string, error)
	ExpungeEvent(ctx context.Context, id, by, reason string, at time.Time, announce func(*store.Event) []store.OpEvent) (*store.Event, bool, error)
	GetTenant(ctx context.Context, id string) (*store.Tenant, error)
	DeleteTenantEvents(ctx context.Context, tenantID, incarnation string) (int64, error)
}

// errTenantNotDeleted: the job starts before its tenant is deleted (so a
// deletion never goes without it) and expunges nothing while the tenant
// lives on; retried, it goes on once the deletion is done.
var errTenantNotDeleted = errors.New("the tenant is not deleted (yet)")

// tenantDeleted is the reason recorded with each event a tenant's
// deletion expunges.
const tenantDeleted = "tenant deleted"

// ExpungePage expunges one page of a deleted tenant's events (its
// incarnation's), in the store's list order, and returns what it did and
// the next page's cursor; after the last page it deletes the records. An event expunged
// before counts as Already; what it left in Temporal is ended again, so
// a page retried after a crash completes. It heartbeats after each
// event.
func (a *Activities) ExpungePage(ctx context.Context, in delivery.ExpungePageInput) (delivery.ExpungePageResult, error) {
	if a.expunger == nil {
		return delivery.ExpungePageResult{}, fmt.Errorf("expunge page: no event records configured")
	}
	t, err := a.records.GetTenant(ctx, in.TenantID)
	switch {
	case err == nil && t.Incarnation == in.Incarnation:
		return delivery.ExpungePageResult{}, fmt.Errorf("expunge page of tenant %s: %w", in.TenantID, errTenantNotDeleted)
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return delivery.ExpungePageResult{}, fmt.Errorf("expunge page of tenant %s: %w", in.TenantID, err)
	}
	f := store.EventFilter{Tenant: &store.TenantFilter{ID: in.TenantID, Incarnation: in.Incarnation}}
	evs, next, err := a.records.ListEvents(ctx, f, store.Page{Cursor: in.Cursor, Limit: delivery.ExpungePageSize})
	if err != nil {
		return delivery.ExpungePageResult{}, fmt.Errorf("expunge page of tenant %s: %w", in.TenantID, err)
	}
	var res delivery.ExpungePageResult
	for _, ev := range evs {
		_, changed, err := a.expunger.Expunge(ctx, ev.ID, in.By, tenantDeleted, in.At)
		if err != nil {
			return delivery.ExpungePageResult{}, fmt.Errorf("expunge page of tenant %s: %w", in.TenantID, err)
		}
		if changed {
			res.Expunged++
		} else {
			res.Already++
		}
		activity.RecordHeartbeat(ctx, res.ExpungeProgress)
	}
	res.Next = next
	if next == "" {
		// Every page is expunged: the records go, so the tenant's event
		// IDs are free for the ID's next owner, as a deletion always made
		// them.
		if _, err := a.records.DeleteTenantEvents(ctx, in.TenantID, in.Incarnation); err != nil {
			return delivery.ExpungePageResult{}, fmt.Errorf("expunge page of tenant %s: %w", in.TenantID, err)
		}
	}
	return res, nil
}
