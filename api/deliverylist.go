package api

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/authz"
	"github.com/hookd/hookd/delivery"
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

// listDeliveries lists delivery runs in the caller's scope, filtered by
// tenant_id, endpoint_id, event_id and status, in Temporal's visibility
// order: running deliveries first (newest first), then closed ones, most
// recently closed first.
func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request) {
	q, err := s.deliveryQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeExecutions(s, w, r, q, deliveryRefOf)
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

// deliveryQuery turns the request's filters into a visibility query over
// deliveries in the caller's scope. Every value is validated first, so
// none can escape its quotes.
func (s *Server) deliveryQuery(r *http.Request) (string, error) {
	v := r.URL.Query()
	f, err := s.tenantFilter(r, v.Get("tenant_id"))
	if err != nil {
		return "", err
	}
	tenant, err := authz.VisibilityClause(f)
	if err != nil {
		return "", err
	}
	q := []string{fmt.Sprintf("WorkflowType = '%s'", delivery.WorkflowDelivery)}
	if tenant != "" {
		q = append(q, tenant)
	}
	if id := v.Get("endpoint_id"); id != "" {
		clause, err := s.endpointClause(r, id)
		if err != nil {
			return "", err
		}
		q = append(q, clause)
	}
	if id := v.Get("event_id"); id != "" {
		if err := validateEventID(id); err != nil {
			return "", err
		}
		if !scope(r).IsPlatform() {
			if _, err := s.event(r, id); err != nil {
				return "", err
			}
		}
		q = append(q, fmt.Sprintf("%s = '%s'", delivery.AttrEventID.GetName(), id))
	}
	switch st := v.Get("status"); {
	case st == "":
		// A run that continued as new lives on in its successor.
		q = append(q, "ExecutionStatus != 'ContinuedAsNew'")
	case statusQuery[delivery.Status(st)] != "":
		q = append(q, statusQuery[delivery.Status(st)])
	default:
		return "", invalid("status", "must be pending, delivered, failed or exhausted")
	}
	return strings.Join(q, " AND "), nil
}

// endpointClause is the visibility condition of an endpoint_id filter. In
// a tenant scope the endpoint must be the tenant's (else 404), so a list
// never confirms another tenant's endpoint exists.
func (s *Server) endpointClause(r *http.Request, id string) (string, error) {
	if !safeValue.MatchString(id) {
		return "", invalid("endpoint_id", "contains characters that are not allowed")
	}
	if err := s.checkEndpointFilter(r, id); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s = '%s'", delivery.AttrEndpointID.GetName(), id), nil
}

// checkEndpointFilter refuses, in a tenant scope, an endpoint_id filter
// naming an endpoint that is not the tenant's: 404, as if it did not
// exist. The platform may filter by any ID, even a deleted endpoint's.
func (s *Server) checkEndpointFilter(r *http.Request, id string) error {
	if scope(r).IsPlatform() {
		return nil
	}
	_, err := s.res.Endpoint(r.Context(), id)
	return notFound(err, "endpoint")
}

// writeExecutions answers one page of the executions matching query,
// after the request's cursor and up to its limit, each as show shows it.
func writeExecutions[U any](s *Server, w http.ResponseWriter, r *http.Request, query string, show func(*workflowpb.WorkflowExecutionInfo) U) {
	limit, err := parseLimit(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	token, err := decodeCursor("cursor", r.URL.Query().Get("cursor"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	resp, err := s.temporal.ListWorkflow(r.Context(), &workflowservice.ListWorkflowExecutionsRequest{
		Query: query, PageSize: int32(limit), NextPageToken: token,
	})
	if err != nil {
		s.writeError(w, r, fromTemporalPage(err, "list workflows", token))
		return
	}
	writePage(w, resp.GetExecutions(), encodeCursor(resp.GetNextPageToken()), show)
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
