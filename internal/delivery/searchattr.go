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
	return m
}
