package api

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/converter"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/visibility"
)

var safeValue = regexp.MustCompile(`^[A-Za-z0-9._:*-]{1,255}$`)

// deadLetterFilter is the filter of list, summary and bulk redrive, as a
// list's query (filterFromQuery) or a bulk redrive's body
// (bulkRedriveFilter) gives it: every field is optional; Since and Until
// are RFC 3339 times, checked by deadLetterQuery.
type deadLetterFilter struct {
	TenantID   string
	EndpointID string
	EventType  string
	Reasons    []string
	Since      string
	Until      string
	// reasonsField names Reasons in errors: "reasons" in a request body,
	// "reason" in a query string.
	reasonsField string
}

// isZero reports whether f selects nothing narrower than the caller's
// whole scope.
func (f deadLetterFilter) isZero() bool {
	return f.TenantID == "" && f.EndpointID == "" && f.EventType == "" && len(f.Reasons) == 0 && f.Since == "" && f.Until == ""
}

// query turns the filter into a Temporal visibility query over waiting
// dead letters in the caller's scope: its tenant filter resolved, and in a
// tenant scope an endpoint_id that must be the tenant's (else 404). Every
// value is validated first, so none can escape its quotes.
func (s *Server) deadLetterQuery(ctx context.Context, f deadLetterFilter) (visibility.Query, error) {
	tenant, err := s.tenantClause(ctx, f.TenantID)
	if err != nil {
		return visibility.Query{}, err
	}
	q := visibility.And(visibility.DeadLetters(""), tenant)
	if f.EventType != "" && !safeValue.MatchString(f.EventType) {
		return visibility.Query{}, invalid("event_type", "contains characters that are not allowed")
	}
	if f.EndpointID != "" {
		clause, err := s.endpointClause(ctx, f.EndpointID)
		if err != nil {
			return visibility.Query{}, err
		}
		q = visibility.And(q, clause)
	}
	if f.EventType != "" {
		q = visibility.And(q, visibility.Is(delivery.AttrEventType, f.EventType))
	}
	if len(f.Reasons) > 0 {
		for _, reason := range f.Reasons {
			if reason != string(delivery.StatusFailed) && reason != string(delivery.StatusExhausted) {
				return visibility.Query{}, invalid(cmp.Or(f.reasonsField, "reasons"), "must be failed or exhausted")
			}
		}
		q = visibility.And(q, visibility.In(delivery.AttrReason, f.Reasons...))
	}
	times, err := startTimeClauses(f.Since, f.Until)
	if err != nil {
		return visibility.Query{}, err
	}
	return visibility.And(q, times), nil
}

// parseTime reads an optional RFC 3339 time; "" is the zero time.
func parseTime(field, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, invalid(field, "must be an RFC 3339 time such as 2026-11-30T12:00:00Z")
	}
	return t, nil
}

func filterFromQuery(v url.Values) deadLetterFilter {
	f := deadLetterFilter{TenantID: v.Get("tenant_id"), EndpointID: v.Get("endpoint_id"), EventType: v.Get("event_type"), Since: v.Get("since"), Until: v.Get("until"), reasonsField: "reason"}
	for _, r := range v["reason"] {
		if r != "" {
			f.Reasons = append(f.Reasons, strings.Split(r, ",")...)
		}
	}
	return f
}

func (s *Server) listDeadLetters(w http.ResponseWriter, r *http.Request) {
	limit, err := parseLimit(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	refs, next, err := s.ListDeadLetters(r.Context(), filterFromQuery(r.URL.Query()), store.Page{Cursor: r.URL.Query().Get("cursor"), Limit: limit})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.DeadLetterPage{Data: listOf(refs, same), NextCursor: next})
}

// ListDeadLetters returns a page of the waiting dead letters f selects in
// the scope of ctx, and the next page's cursor.
func (s *Server) ListDeadLetters(ctx context.Context, f DeadLetterFilter, p store.Page) ([]DeadLetterRef, string, error) {
	q, err := s.deadLetterQuery(ctx, f)
	if err != nil {
		return nil, "", err
	}
	return listExecutions(ctx, s, q, p, s.refOf)
}

// refOf reads a dead letter's list entry from its visibility record; the
// memo is decoded through the client's data converter (it is encrypted
// with the payloads).
func (s *Server) refOf(ex *workflowpb.WorkflowExecutionInfo) DeadLetterRef {
	attrs := ex.GetSearchAttributes().GetIndexedFields()
	return DeadLetterRef{
		ID:         keyword(attrs, delivery.AttrDeliveryID.GetName()),
		EventID:    keyword(attrs, delivery.AttrEventID.GetName()),
		EventType:  keyword(attrs, delivery.AttrEventType.GetName()),
		EndpointID: keyword(attrs, delivery.AttrEndpointID.GetName()),
		TenantID:   keyword(attrs, delivery.AttrTenantID.GetName()),
		Reason:     wire.DeadLetterReason(keyword(attrs, delivery.AttrReason.GetName())),
		DeadAt:     ex.GetStartTime().AsTime(),
		LastStatus: payloadValue[int](s.dc, ex.GetMemo().GetFields(), delivery.MemoLastStatus),
		LastError:  payloadValue[string](s.dc, ex.GetMemo().GetFields(), delivery.MemoLastError),
	}
}

// payloadValue decodes one memo or search attribute field with dc; a
// missing or odd one is T's zero (dead letters parked before hookd wrote
// the memo have none).
func payloadValue[T any](dc converter.DataConverter, fields map[string]*commonpb.Payload, name string) T {
	var v T
	if p := fields[name]; p != nil {
		_ = dc.FromPayload(p, &v)
	}
	return v
}

func (s *Server) getDeadLetter(w http.ResponseWriter, r *http.Request) {
	out, err := s.DeadLetter(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// DeadLetter returns the dead letter of a delivery ID in full, if the
// scope of ctx may see it.
func (s *Server) DeadLetter(ctx context.Context, id string) (DeadLetterView, error) {
	info, err := s.deadLetter(ctx, id)
	if err != nil {
		return DeadLetterView{}, err
	}
	var entry delivery.DeadLetter
	v, err := s.temporal.QueryWorkflow(ctx, delivery.DeadLetterID(id), "", delivery.QueryEntry)
	if err == nil {
		err = v.Get(&entry)
	}
	if err != nil {
		return DeadLetterView{}, fromTemporal(err, "read dead letter", "")
	}
	out := deadLetterOf(s.refOf(info), info.GetStatus(), entry)
	body, expunged := s.bodyOf(ctx, entry.Request)
	out.Payload, out.PayloadExpunged = payloadOrNull(body), expunged
	return out, nil
}

// payloadOrNull is a body as a JSON value: null when there is none.
func payloadOrNull(body string) json.RawMessage {
	if body == "" {
		return json.RawMessage("null")
	}
	return json.RawMessage(body)
}

// deadLetter describes the dead letter of a delivery ID, if the scope of
// ctx may see it (by its tenant search attribute).
func (s *Server) deadLetter(ctx context.Context, deliveryID string) (*workflowpb.WorkflowExecutionInfo, error) {
	desc, err := s.temporal.DescribeWorkflowExecution(ctx, delivery.DeadLetterID(deliveryID), "")
	if err != nil {
		return nil, fromTemporal(err, "describe dead letter", "dead letter not found")
	}
	info := desc.GetWorkflowExecutionInfo()
	incarnation := keyword(info.GetSearchAttributes().GetIndexedFields(), delivery.AttrTenantIncarnation.GetName())
	if err := s.res.Owned(ctx, s.refOf(info).TenantID, incarnation); err != nil {
		return nil, notFound(err, "dead letter")
	}
	return info, nil
}

// deadLetterOf is one dead letter in full, as the API shows it: its list
// entry, its state (waiting, or closed: redriven or expired), timeline and
// payload.
func deadLetterOf(ref DeadLetterRef, status enumspb.WorkflowExecutionStatus, e delivery.DeadLetter) DeadLetterView {
	out := DeadLetterView{ID: ref.ID, EventID: ref.EventID, EventType: ref.EventType, EndpointID: ref.EndpointID, TenantID: ref.TenantID,
		Reason: ref.Reason, DeadAt: ref.DeadAt, LastStatus: ref.LastStatus, LastError: ref.LastError,
		State: wire.DeadLetterStateWaiting, Attempts: len(e.Attempts), Timeline: timelineOut(e.Attempts), Payload: json.RawMessage(e.Request.Body)}
	if status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		out.State = wire.DeadLetterStateClosed
	}
	if !e.DeadAt.IsZero() {
		out.DeadAt = e.DeadAt
	}
	if len(e.Attempts) > 0 {
		first, last := e.Attempts[0], e.Attempts[len(e.Attempts)-1]
		out.FirstAttemptAt, out.LastAttemptAt = first.Start, last.Start
		out.LastStatus, out.LastError = last.Status, last.LastError()
	}
	return out
}
