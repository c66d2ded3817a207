package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"
	"golang.org/x/sync/errgroup"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/visibility"
)

// statusQuery is the visibility condition of each status filter.
var statusQuery = map[delivery.Status]visibility.Query{
	delivery.StatusPending:   visibility.Status(visibility.Running),
	delivery.StatusDelivered: visibility.Status(visibility.Completed),
	delivery.StatusFailed:    failedAs(delivery.StatusFailed),
	delivery.StatusExhausted: failedAs(delivery.StatusExhausted),
	delivery.StatusExpunged:  failedAs(delivery.StatusExpunged),
}

// failedAs is the visibility condition of the runs that failed with
// HookdStatus st.
func failedAs(st delivery.Status) visibility.Query {
	return visibility.And(visibility.Status(visibility.Failed), visibility.Is(delivery.AttrStatus, string(st)))
}

// DeliveryFilter selects deliveries: every field is optional.
type DeliveryFilter struct {
	TenantID   string
	EndpointID string
	EventID    string
	EventType  string
	// Status is pending, delivered, failed, exhausted or expunged.
	Status string
	// Since and Until bound the delivery's creation: RFC 3339 times.
	Since, Until string
}

// listDeliveries lists the deliveries in the caller's scope, filtered by
// tenant_id, endpoint_id, event_id, event_type, status (the current
// run's), since and until (the delivery's creation), newest first by
// creation (see ListDeliveries).
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
	writeJSON(w, http.StatusOK, wire.DeliveryPage{Data: listOf(refs, same), NextCursor: next})
}

// ListDeliveries returns a page of the deliveries f selects in the scope
// of ctx, newest first by creation, and the next page's cursor.
//
// Visibility has a record per run and orders them by close time, and a
// redrive's run keeps the delivery ID: a delivery redriven once has two
// records, and a pending one sorts above every closed one. So the list
// reads visibility in windows of creation time (HookdCreatedAt, the same
// on every run of a delivery, so all its runs fall in one window), sized
// by counting so that one holds a few hundred runs at most. In a window
// it keeps each delivery's latest run, drops a run a later one superseded
// (a failed run whose delivery was redriven since), and orders by
// creation, then ID. Each delivery kept is read in full (as GET
// /v1/deliveries/{id} reads it) for its current status, attempts and
// latest status; a status filter matches that current status. The cursor
// is the last delivery's creation and ID, signed.
func (s *Server) ListDeliveries(ctx context.Context, f DeliveryFilter, p store.Page) ([]DeliveryRef, string, error) {
	q, err := s.deliveryQuery(ctx, f)
	if err != nil {
		return nil, "", err
	}
	var from *listKey
	if p.Cursor != "" {
		token, err := s.cursors.decode(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		var k listKey
		if json.Unmarshal(token, &k) != nil || k.ID == "" {
			return nil, "", invalidCursor()
		}
		from = &k
	}
	until, _ := parseTime("until", f.Until) // validated by deliveryQuery
	l := deliveryLister{s: s, query: q, status: delivery.Status(f.Status), from: from, limit: cmp.Or(p.Limit, store.DefaultPageSize), seen: map[string]bool{}}
	out, more, err := l.page(ctx, until)
	if err != nil || !more || len(out) == 0 {
		return out, "", err
	}
	last := out[len(out)-1]
	token, err := json.Marshal(listKey{At: last.CreatedAt.UnixNano(), ID: last.ID})
	if err != nil {
		return nil, "", fmt.Errorf("encode cursor: %w", err)
	}
	return out, s.cursors.encode(token), nil
}

// listKey is a delivery's place in a list: its creation time (Unix
// nanoseconds) and ID. A page's cursor is its last delivery's.
type listKey struct {
	At int64  `json:"t"`
	ID string `json:"id"`
}

// before says whether the delivery created at at with ID id comes after
// k in a list (created before it, or at the same time with a lower ID).
func (k listKey) before(at time.Time, id string) bool {
	n := at.UnixNano()
	return n < k.At || (n == k.At && id < k.ID)
}

// Bounds of the windows a delivery list reads: the first spans
// listWindow back from its top; one counting more than listWindowRows
// runs is narrowed (down to a millisecond: deliveries of one event share
// their creation), one with too few is followed by a wider one.
const (
	listWindow     = time.Minute
	listWindowRows = 500
	listReaders    = 8 // deliveries read at once
)

// deliveryLister reads one page of a delivery list.
type deliveryLister struct {
	s      *Server
	query  visibility.Query // the filter's conditions, status included
	status delivery.Status
	from   *listKey // the previous page's last delivery
	limit  int
	seen   map[string]bool // delivery IDs already listed
}

// page walks back from until (zero: now) window by window until it holds
// limit deliveries or nothing older is left; more says something older
// may be left.
func (l *deliveryLister) page(ctx context.Context, until time.Time) (out []DeliveryRef, more bool, err error) {
	top, open := until, until.IsZero()
	if l.from != nil {
		top, open = time.Unix(0, l.from.At), false
	}
	inclusive := true // the first window includes its top
	w := listWindow
	for {
		end := top
		if end.IsZero() {
			end = l.s.now()
		}
		lower := end.Add(-w)
		window := visibility.And(l.query, visibility.Created(visibility.NotBefore, lower))
		switch {
		case open:
		case inclusive:
			window = visibility.And(window, visibility.Created(visibility.NotAfter, top))
		default:
			window = visibility.And(window, visibility.Created(visibility.Before, top))
		}
		n, err := l.s.count(ctx, window)
		if err != nil {
			return nil, false, err
		}
		if n > listWindowRows && w > time.Millisecond {
			w /= 8
			continue
		}
		if n > 0 {
			rows, full, err := l.keep(ctx, window, l.limit-len(out))
			if err != nil {
				return nil, false, err
			}
			if out = append(out, rows...); full {
				return out, true, nil
			}
		}
		older, err := l.s.count(ctx, visibility.And(l.query, visibility.Created(visibility.Before, lower)))
		if err != nil {
			return nil, false, err
		}
		if older == 0 {
			return out, false, nil
		}
		top, open, inclusive = lower, false, false
		if n < int64(l.limit) {
			w *= 8
		}
	}
}

// candidate is a run a window listed, with the delivery's place.
type candidate struct {
	ex *workflowpb.WorkflowExecutionInfo
	at time.Time
}

// keep reads a window's runs and returns, newest first, up to need of the
// deliveries they are the current run of (see ListDeliveries); full says
// need were found, so the window may hold more.
func (l *deliveryLister) keep(ctx context.Context, window visibility.Query, need int) ([]DeliveryRef, bool, error) {
	latest := map[string]candidate{}
	err := l.s.eachExecution(ctx, window, func(ex *workflowpb.WorkflowExecutionInfo) {
		id := ex.GetExecution().GetWorkflowId()
		c := candidate{ex: ex, at: createdOf(ex)}
		if l.seen[id] || (l.from != nil && !l.from.before(c.at, id)) {
			return
		}
		if prev, ok := latest[id]; !ok || ex.GetStartTime().AsTime().After(prev.ex.GetStartTime().AsTime()) {
			latest[id] = c
		}
	})
	if err != nil {
		return nil, false, err
	}
	cands := make([]candidate, 0, len(latest))
	for _, c := range latest {
		cands = append(cands, c)
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		if c := b.at.Compare(a.at); c != 0 {
			return c
		}
		return strings.Compare(b.ex.GetExecution().GetWorkflowId(), a.ex.GetExecution().GetWorkflowId())
	})
	var out []DeliveryRef
	for len(cands) > 0 && len(out) < need {
		batch := cands[:min(len(cands), need-len(out))]
		cands = cands[len(batch):]
		rows := make([]*DeliveryRef, len(batch))
		errs := make([]error, len(batch))
		var g errgroup.Group
		g.SetLimit(listReaders)
		for i, c := range batch {
			g.Go(func() error {
				rows[i], errs[i] = l.row(ctx, c)
				return nil
			})
		}
		_ = g.Wait() // every row's error is in errs
		for i := range batch {
			if errs[i] != nil {
				return nil, false, errs[i]
			}
			if rows[i] != nil {
				l.seen[rows[i].ID] = true
				out = append(out, *rows[i])
			}
		}
	}
	return out, len(out) == need, nil
}

// row reads the delivery of a candidate run: nil if that run is not the
// delivery's current one (a redrive superseded it), if the delivery's
// current status does not match the status filter, or if it is gone.
func (l *deliveryLister) row(ctx context.Context, c candidate) (*DeliveryRef, error) {
	id := c.ex.GetExecution().GetWorkflowId()
	d, current, err := l.s.readDeliveryRun(ctx, id)
	var e *Error
	if errors.As(err, &e) && e.Code == CodeNotFound {
		return nil, nil // expired since it was listed, or not the scope's
	}
	if err != nil {
		return nil, err
	}
	if current.GetExecution().GetRunId() != c.ex.GetExecution().GetRunId() && superseded(c.ex) {
		return nil, nil
	}
	if l.status != "" && d.Status != wire.DeliveryStatus(l.status) {
		return nil, nil
	}
	ref := deliveryRefOf(c.ex)
	ref.Status, ref.Attempts, ref.Runs, ref.LastStatus = d.Status, d.Attempts, d.Runs, d.LastStatus
	ref.ClosedAt = time.Time{}
	if current.GetCloseTime() != nil {
		ref.ClosedAt = current.GetCloseTime().AsTime()
	}
	return &ref, nil
}

// superseded says whether a run that is not its delivery's current one
// was replaced by a later run: a run that ended without delivering (the
// only kind a redrive replaces). A run that is running or delivered but
// not current has just continued as new or closed; it still stands for
// its delivery.
func superseded(ex *workflowpb.WorkflowExecutionInfo) bool {
	switch ex.GetStatus() {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return false
	}
	return true
}

// createdOf is a run's delivery's creation: HookdCreatedAt, or for a run
// from before that attribute its start.
func createdOf(ex *workflowpb.WorkflowExecutionInfo) time.Time {
	var at time.Time
	if p := ex.GetSearchAttributes().GetIndexedFields()[delivery.AttrCreatedAt.GetName()]; p != nil {
		if converter.GetDefaultDataConverter().FromPayload(p, &at) == nil && !at.IsZero() {
			return at
		}
	}
	return ex.GetStartTime().AsTime()
}

// same shows a list item as it is.
func same[T any](v T) T { return v }

// deliveryQuery turns the filter into a visibility query over deliveries
// in the scope of ctx. Every value is validated first, so none can escape
// its quotes.
func (s *Server) deliveryQuery(ctx context.Context, f DeliveryFilter) (visibility.Query, error) {
	tenant, err := s.tenantClause(ctx, f.TenantID)
	if err != nil {
		return visibility.Query{}, err
	}
	q := visibility.And(visibility.WorkflowType(delivery.WorkflowDelivery), tenant)
	if f.EndpointID != "" {
		clause, err := s.endpointClause(ctx, f.EndpointID)
		if err != nil {
			return visibility.Query{}, err
		}
		q = visibility.And(q, clause)
	}
	if id := f.EventID; id != "" {
		if err := validateEventID(id); err != nil {
			return visibility.Query{}, err
		}
		if !authz.FromContext(ctx).IsPlatform() {
			if _, err := s.event(ctx, id); err != nil {
				return visibility.Query{}, err
			}
		}
		q = visibility.And(q, visibility.Is(delivery.AttrEventID, id))
	}
	if f.EventType != "" {
		if !safeValue.MatchString(f.EventType) {
			return visibility.Query{}, invalid("event_type", "contains characters that are not allowed")
		}
		q = visibility.And(q, visibility.Is(delivery.AttrEventType, f.EventType))
	}
	switch st, ok := statusQuery[delivery.Status(f.Status)]; {
	case f.Status == "":
		// A run that continued as new lives on in its successor.
		q = visibility.And(q, visibility.NotStatus(visibility.ContinuedAsNew))
	case ok:
		q = visibility.And(q, st)
	default:
		return visibility.Query{}, invalid("status", "must be pending, delivered, failed, exhausted or expunged")
	}
	since, until, err := timeRange(f.Since, f.Until)
	if err != nil {
		return visibility.Query{}, err
	}
	if !since.IsZero() {
		q = visibility.And(q, visibility.Created(visibility.NotBefore, since))
	}
	if !until.IsZero() {
		q = visibility.And(q, visibility.Created(visibility.NotAfter, until))
	}
	return q, nil
}

// timeRange reads since and until filters (RFC 3339 times, "" for none).
func timeRange(sinceIn, untilIn string) (since, until time.Time, err error) {
	if since, err = parseTime("since", sinceIn); err != nil {
		return since, until, err
	}
	if until, err = parseTime("until", untilIn); err != nil {
		return since, until, err
	}
	if !since.IsZero() && !until.IsZero() && since.After(until) {
		return since, until, invalid("since", "must not be after until")
	}
	return since, until, nil
}

// startTimeClauses is the visibility condition of since and until
// filters (RFC 3339 times, "" for none) on a workflow's start.
func startTimeClauses(sinceIn, untilIn string) (visibility.Query, error) {
	since, until, err := timeRange(sinceIn, untilIn)
	if err != nil {
		return visibility.Query{}, err
	}
	var q visibility.Query
	if !since.IsZero() {
		q = visibility.Started(visibility.NotBefore, since)
	}
	if !until.IsZero() {
		q = visibility.And(q, visibility.Started(visibility.NotAfter, until))
	}
	return q, nil
}

// endpointClause is the visibility condition of an endpoint_id filter. In
// a tenant scope the endpoint must be the tenant's (else 404), so a list
// never confirms another tenant's endpoint exists.
func (s *Server) endpointClause(ctx context.Context, id string) (visibility.Query, error) {
	if !safeValue.MatchString(id) {
		return visibility.Query{}, invalid("endpoint_id", "contains characters that are not allowed")
	}
	if err := s.checkEndpointFilter(ctx, id); err != nil {
		return visibility.Query{}, err
	}
	return visibility.Is(delivery.AttrEndpointID, id), nil
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
func listExecutions[U any](ctx context.Context, s *Server, query visibility.Query, p store.Page, show func(*workflowpb.WorkflowExecutionInfo) U) ([]U, string, error) {
	token, err := s.cursors.decode(p.Cursor)
	if err != nil {
		return nil, "", err
	}
	resp, err := s.temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: query.String(), PageSize: int32(cmp.Or(p.Limit, store.DefaultPageSize)), NextPageToken: token,
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
func deliveryRefOf(ex *workflowpb.WorkflowExecutionInfo) DeliveryRef {
	attrs := ex.GetSearchAttributes().GetIndexedFields()
	ref := DeliveryRef{
		ID:         ex.GetExecution().GetWorkflowId(),
		EventID:    keyword(attrs, delivery.AttrEventID.GetName()),
		EventType:  keyword(attrs, delivery.AttrEventType.GetName()),
		EndpointID: keyword(attrs, delivery.AttrEndpointID.GetName()),
		TenantID:   keyword(attrs, delivery.AttrTenantID.GetName()),
		CreatedAt:  createdOf(ex),
	}
	if ex.GetCloseTime() != nil {
		ref.ClosedAt = ex.GetCloseTime().AsTime()
	}
	ref.Status = wire.DeliveryStatus(runStatus(ex))
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
		if st := delivery.Status(keyword(ex.GetSearchAttributes().GetIndexedFields(), delivery.AttrStatus.GetName())); st == delivery.StatusExhausted || st == delivery.StatusExpunged {
			return st
		}
		return delivery.StatusFailed
	default:
		return operatorStatus(ex.GetStatus())
	}
}
