package delivery

import "time"

// Deleting a tenant expunges every event it left (package expunge) in a
// TenantExpunge workflow (workflows.TenantExpunge): its ExpungePage
// activity expunges one page of the tenant's event records at a time, so
// the job runs in the background, survives any process's restart (Temporal
// runs it to the end) and reports its progress.

// Names the job's workflow, query and activity are registered under.
const (
	WorkflowTenantExpunge = "TenantExpunge"
	QueryExpungeProgress  = "progress"
	ActivityExpungePage   = "ExpungePage"
)

// ExpungePageSize is the events one page expunges.
const ExpungePageSize = 100

// TenantExpungeID is the workflow ID of a tenant's expunge job; a tenant
// deleted again under a new incarnation starts a new run of it.
func TenantExpungeID(tenantID string) string { return "tenant-expunge:" + tenantID }

// TenantExpungeInput is a tenant's expunge job: whose events (the
// incarnation deleted), by whom and when, and how far it got (carried
// across continue-as-new).
type TenantExpungeInput struct {
	TenantID    string          `json:"tenant_id"`
	Incarnation string          `json:"incarnation"`
	By          string          `json:"by"`
	At          time.Time       `json:"at"`
	Cursor      string          `json:"cursor,omitempty"`
	Progress    ExpungeProgress `json:"progress"`
}

// ExpungeProgress counts a job's events: Expunged by it, Already expunged
// before.
type ExpungeProgress struct {
	Expunged int64 `json:"expunged"`
	Already  int64 `json:"already"`
}

// Add is p plus q.
func (p ExpungeProgress) Add(q ExpungeProgress) ExpungeProgress {
	return ExpungeProgress{Expunged: p.Expunged + q.Expunged, Already: p.Already + q.Already}
}

// ExpungePageInput is one activity's work: a page of the tenant's events
// from Cursor.
type ExpungePageInput struct {
	TenantID    string    `json:"tenant_id"`
	Incarnation string    `json:"incarnation"`
	By          string    `json:"by"`
	At          time.Time `json:"at"`
	Cursor      string    `json:"cursor,omitempty"`
}

// ExpungePageResult is what a page did, and the cursor of the next page
// ("" when the tenant has no more events).
type ExpungePageResult struct {
	ExpungeProgress
	Next string `json:"next,omitempty"`
}
