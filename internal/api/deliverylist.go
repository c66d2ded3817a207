package api

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// deliveryRef is a delivery in a list: what its visibility record says.
type deliveryRef struct {
	ID         string          `json:"id"`
	EventID    string          `json:"event_id"`
	EventType  string          `json:"event_type"`
	EndpointID string          `json:"endpoint_id"`
	TenantID   string          `json:"tenant_id,omitempty"`
	Status     delivery.Status `json:"status"`
	CreatedAt  time.Time       `json:"created_at"`
	ClosedAt   *time.Time      `json:"closed_at,omitempty"`
}

// statusQuery is the visibility condition of each status filter.
var statusQuery = map[delivery.Status]string{
	delivery.StatusPending:   "ExecutionStatus = 'Running'",
	delivery.StatusDelivered: "ExecutionStatus = 'Completed'",
	delivery.StatusFailed:    fmt.Sprintf("ExecutionStatus = 'Failed' AND %s = '%s'", delivery.AttrStatus.GetName(), delivery.StatusFailed),
	delivery.StatusExhausted: fmt.Sprintf("ExecutionStatus = 'Failed' AND %s = '%s'", delivery.AttrStatus.GetName(), delivery.StatusExhausted),
}

// DeliveryFilter selects deliveries: every field is optional.
type DeliveryFilter struct {
	TenantID   string
	EndpointID string
	EventID    string
	EventType  string
	// Status is pending, delivered, failed or exhausted.
	Status string
	// Since and Until bound the delivery's start: RFC 3339 times.
	Since, Until string
}

// listDeliveries lists delivery runs in the caller's scope, filtered by
// tenant_id, endpoint_id, event_id, event_type, status, since and until,
// in Temporal's visibility order: running deliveries first (newest
// first), then closed ones, most recently closed first.
func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request) {
	limit, err := parseLimit(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	v := r.URL.Query()
	f := DeliveryFilter{TenantID: v.Get("tenant_id"), EndpointID: v.Get("endpoint_id"), EventID: v.Get("event_id"),
		EventType: v.Get("event_type"), Status: v.Get("status"), Since: v.Get("since"), Until: v.Get("until")}
	refs, next, err := s.ListDeliveries(r.Context(), f, store.Page{Cursor: v.Get("cursor"), Limit: limit})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writePage(w, refs, next, same)
}

// ListDeliveries returns a page of the deliveries f selects in the scope
// of ctx, and the next page's cursor.
func (s *Server) ListDeliveries(ctx context.Context, f DeliveryFilter, p store.Page) ([]DeliveryRef, string, error) {
	q, err := s.deliveryQuery(ctx, f)
	if err != nil {
		return nil, "", err
	}
	return listExecutions(ctx, s, q, p, deliveryRefOf)
}

// writePage answers one page of a list: each item as show shows it, and
// the cursor of the next page ("" on the last).
func writePage[T, U any](w http.ResponseWriter, items []T, next string, show func(T) U) {
	out := struct {
		Data       []U    `json:"data"`
		NextCursor string `json:"next_cursor,omitempty"`
	}{Data: make([]U, 0, len(items)), NextCursor: next}
	for _, it := range items {
		out.Data = append(out.Data, show(it))
	}
	writeJSON(w, http.StatusOK, out)
}

// same shows a list item as it is.
func same[T any](v T) T { return v }

// deliveryQuery turns the filter into a visibility query over deliveries
// in the scope of ctx. Every value is validated first, so none can escape
// its quotes.
func (s *Server) deliveryQuery(ctx context.Context, f DeliveryFilter) (string, error) {
	tenant, err := s.tenantClause(ctx, f.TenantID)
	if err != nil {
		return "", err
	}
	q := []string{fmt.Sprintf("WorkflowType = '%s'", delivery.WorkflowDelivery)}
	if tenant != "" {
		q = append(q, tenant)
	}
	if f.EndpointID != "" {
		clause, err := s.endpointClause(ctx, f.EndpointID)
		if err != nil {
			return "", err
		}
		q = append(q, clause)
	}
	if id := f.EventID; id != "" {
		if err := validateEventID(id); err != nil {
			return "", err
		}
		if !authz.FromContext(ctx).IsPlatform() {
			if _, err := s.event(ctx, id); err != nil {
				return "", err
			}
		}
		q = append(q, fmt.Sprintf("%s = '%s'", delivery.AttrEventID.GetName(), id))
	}
	if f.EventType != "" {
		if !safeValue.MatchString(f.EventType) {
			return "", invalid("event_type", "contains characters that are not allowed")
		}
		q = append(q, fmt.Sprintf("%s = '%s'", delivery.AttrEventType.GetName(), f.EventType))
	}
	switch st := f.Status; {
	case st == "":
		// A run that continued as new lives on in its successor.
		q = append(q, "ExecutionStatus != 'ContinuedAsNew'")
	case statusQuery[delivery.Status(st)] != "":
		q = append(q, statusQuery[delivery.Status(st)])
	default:
		return "", invalid("status", "must be pending, delivered, failed or exhausted")
	}
	times, err := startTimeClauses(f.Since, f.Until)
	if err != nil {
		return "", err
	}
	return strings.Join(append(q, times...), " AND "), nil
}

// startTimeClauses are the visibility conditions of since and until
// filters (RFC 3339 times, "" for none) on a workflow's start.
func startTimeClauses(sinceIn, untilIn string) ([]string, error) {
	since, err := parseTime("since", sinceIn)
	if err != nil {
		return nil, err
	}
	until, err := parseTime("until", untilIn)
	if err != nil {
		return nil, err
	}
	if !since.IsZero() && !until.IsZero() && since.After(until) {
		return nil, invalid("since", "must not be after until")
	}
	var q []string
	if !since.IsZero() {
		q = append(q, fmt.Sprintf("StartTime >= '%s'", since.UTC().Format(time.RFC3339Nano)))
	}
	if !until.IsZero() {
		q = append(q, fmt.Sprintf("StartTime <= '%s'", until.UTC().Format(time.RFC3339Nano)))
	}
	return q, nil
}

// endpointClause is the visibility condition of an endpoint_id filter. In
// a tenant scope the endpoint must be the tenant's (else 404), so a list
// never confirms another tenant's endpoint exists.
func (s *Server) endpointClause(ctx context.Context, id string) (string, error) {
	if !safeValue.MatchString(id) {
		return "", invalid("endpoint_id", "contains characters that are not allowed")
	}
	if err := s.checkEndpointFilter(ctx, id); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s = '%s'", delivery.AttrEndpointID.GetName(), id), nil
}

// checkEndpointFilter refuses, in a tenant scope, an endpoint_id filter
// naming an endpoint that is not the tenant's: 404, as if it did not
// exist. The platform may filter by any ID, even a deleted endpoint's.
func (s *Server) checkEndpointFilter(ctx context.Context, id string) error {
	if authz.FromContext(ctx).IsPlatform() {
		return nil
	}
	_, err := s.res.Endpoint(ctx, id)
	return notFound(err, "endpoint")
}

// listExecutions reads one page of the executions matching query, after
// p's cursor and up to its limit (50 when zero), each as show shows it,
// and the next page's cursor.
func listExecutions[U any](ctx context.Context, s *Server, query string, p store.Page, show func(*workflowpb.WorkflowExecutionInfo) U) ([]U, string, error) {
	token, err := s.cursors.decode(p.Cursor)
	if err != nil {
		return nil, "", err
	}
	resp, err := s.temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: query, PageSize: int32(cmp.Or(p.Limit, 50)), NextPageToken: token,
	})
	if err != nil {
		return nil, "", fromTemporalPage(err, "list workflows", token)
	}
	out := make([]U, 0, len(resp.GetExecutions()))
	for _, ex := range resp.GetExecutions() {
		out = append(out, show(ex))
	}
	return out, s.cursors.encode(resp.GetNextPageToken()), nil
}

// deliveryRefOf reads a delivery's list entry from its visibility record.
func deliveryRefOf(ex *workflowpb.WorkflowExecutionInfo) deliveryRef {
	attrs := ex.GetSearchAttributes().GetIndexedFields()
	ref := deliveryRef{
		ID:         ex.GetExecution().GetWorkflowId(),
		EventID:    keyword(attrs, delivery.AttrEventID.GetName()),
		EventType:  keyword(attrs, delivery.AttrEventType.GetName()),
		EndpointID: keyword(attrs, delivery.AttrEndpointID.GetName()),
		TenantID:   keyword(attrs, delivery.AttrTenantID.GetName()),
		CreatedAt:  ex.GetStartTime().AsTime(),
	}
	if ex.GetCloseTime() != nil {
		closed := ex.GetCloseTime().AsTime()
		ref.ClosedAt = &closed
	}
	ref.Status = runStatus(ex)
	return ref
}

// runStatus is a delivery run's status as its visibility record or
// description says it.
func runStatus(ex *workflowpb.WorkflowExecutionInfo) delivery.Status {
	switch ex.GetStatus() {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return delivery.StatusPending
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return delivery.StatusDelivered
	case enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:
		if st := delivery.Status(keyword(ex.GetSearchAttributes().GetIndexedFields(), delivery.AttrStatus.GetName())); st == delivery.StatusExhausted {
			return st
		}
		return delivery.StatusFailed
	default:
		return operatorStatus(ex.GetStatus())
	}
}
