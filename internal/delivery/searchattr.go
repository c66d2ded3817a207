package delivery

import (
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
)

// Search attributes hookd sets on its workflows, so operators can filter
// deliveries and dead letters in the Web UI, the temporal CLI and the API.
var (
	AttrEndpointID = temporal.NewSearchAttributeKeyKeyword("HookdEndpointId")
	AttrEventType  = temporal.NewSearchAttributeKeyKeyword("HookdEventType")
	AttrEventID    = temporal.NewSearchAttributeKeyKeyword("HookdEventId")
	AttrDeliveryID = temporal.NewSearchAttributeKeyKeyword("HookdDeliveryId")
	// AttrStatus is set only off the happy path (retrying, failed,
	// exhausted, delivered after a retry), so a first-attempt success costs
	// no extra history event.
	AttrStatus = temporal.NewSearchAttributeKeyKeyword("HookdStatus")
	// AttrReason is a dead letter's reason: failed or exhausted.
	AttrReason = temporal.NewSearchAttributeKeyKeyword("HookdReason")
	// AttrTenantID is the tenant of a delivery or dead letter, set at
	// start; absent for the platform's own endpoints.
	AttrTenantID = temporal.NewSearchAttributeKeyKeyword("HookdTenantId")
	// AttrTenantIncarnation is the incarnation of that tenant
	// (store.Tenant.Incarnation), set at start with AttrTenantID; absent
	// for tenants from before incarnations. A tenant sees a delivery only
	// if both match, so what a deleted tenant left in Temporal never
	// reaches the next tenant created under its ID.
	AttrTenantIncarnation = temporal.NewSearchAttributeKeyKeyword("HookdTenantIncarnation")
	// AttrCreatedAt is when the delivery was created: its event's
	// acceptance (Request.AcceptedAt), set at start on every run of the
	// delivery ID alike, so a list orders deliveries by their creation,
	// not by when their latest run started or closed, and every run of a
	// delivery falls in the same time window. Absent on runs from before
	// it (their StartTime stands in).
	AttrCreatedAt = temporal.NewSearchAttributeKeyTime("HookdCreatedAt")
	// AttrRun is the run's number among the runs of its delivery ID: 1
	// for the first, one more per redrive, set at start. Absent on runs
	// from before it.
	AttrRun = temporal.NewSearchAttributeKeyInt64("HookdRun")
)

// HookdStatus values besides the final statuses (delivered, failed,
// exhausted) the Delivery workflow sets.
const (
	// SearchStatusRetrying: the first attempt failed; later attempts
	// follow the retry schedule.
	SearchStatusRetrying = "retrying"
	// SearchStatusWaiting: an attempt was deferred because the endpoint's
	// circuit is open or the endpoint is disabled; the delivery waits
	// without spending its budget (a recover ends the wait).
	SearchStatusWaiting = "waiting"
)

// SearchAttributes lists every custom search attribute with its type, for
// registration on a namespace.
func SearchAttributes() map[string]enumspb.IndexedValueType {
	m := map[string]enumspb.IndexedValueType{}
	for _, k := range []temporal.SearchAttributeKeyKeyword{AttrEndpointID, AttrEventType, AttrEventID, AttrDeliveryID, AttrStatus, AttrReason, AttrTenantID, AttrTenantIncarnation} {
		m[k.GetName()] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
	}
	m[AttrCreatedAt.GetName()] = enumspb.INDEXED_VALUE_TYPE_DATETIME
	m[AttrRun.GetName()] = enumspb.INDEXED_VALUE_TYPE_INT
	return m
}
