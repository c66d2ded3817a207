package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/visibility"
)

// Bulk redrive rates, in redrives per second. hookd paces the signals
// itself (package redrive): Temporal's batcher ignores a request's rate
// and takes its namespace's BatcherRPS.
const (
	DefaultRedriveRate = 10
	MinRedriveRate     = 0.1
	MaxRedriveRate     = 1000
)

func (s *Server) redriveOne(w http.ResponseWriter, r *http.Request) {
	var body wire.RedriveRequest
	if err := s.decode(w, r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	id := chi.URLParam(r, "id")
	if err := s.RedriveDeadLetter(r.Context(), id, wire.Deref(body.Reason)); err != nil {
		s.writeError(w, r, err)
		return
	}
	out := wire.RedriveRequested{DeliveryID: id, Status: wire.RedriveRequestedStatusRedriveRequested}
	_, hold := s.RedriveHold(r.Context(), id)
	out.HeldBy, out.HeldUntil = hold.wire()
	writeJSON(w, http.StatusAccepted, out)
}

// HoldCircuitOpen is Hold.By when the endpoint's circuit is open.
const HoldCircuitOpen = "circuit_open"

// Hold says that redriven deliveries will wait, and until when: the
// endpoint's circuit is open. A redrive goes through a disabled
// endpoint's switch, so only the circuit holds it. The zero Hold holds
// nothing.
type Hold struct {
	By    string // HoldCircuitOpen
	Until *time.Time
}

// wire is the hold as an answer's held_by and held_until.
func (h Hold) wire() (wire.HeldBy, time.Time) {
	var until time.Time
	if h.Until != nil {
		until = *h.Until
	}
	return wire.HeldBy(h.By), until
}

// RedriveHold is the endpoint of the dead letter with this delivery ID,
// in the scope of ctx, and what holds a redrive of it now: zero when
// attempts flow or it cannot be read (a redrive is accepted either way).
func (s *Server) RedriveHold(ctx context.Context, deliveryID string) (endpointID string, h Hold) {
	info, err := s.deadLetter(ctx, deliveryID)
	if err != nil {
		return "", Hold{}
	}
	endpointID = s.refOf(info).EndpointID
	return endpointID, s.heldBy(ctx, endpointID)
}

// EndpointHold is what holds a redrive of the endpoint's deliveries now,
// in the scope of ctx: zero for an endpoint it cannot see, or whose
// attempts flow.
func (s *Server) EndpointHold(ctx context.Context, endpointID string) Hold {
	if _, err := s.res.Endpoint(ctx, endpointID); err != nil {
		return Hold{}
	}
	return s.heldBy(ctx, endpointID)
}

// heldBy is what will hold a redrive of endpointID's deliveries now; zero
// when attempts flow or the circuit cannot be read.
func (s *Server) heldBy(ctx context.Context, endpointID string) Hold {
	if endpointID == "" {
		return Hold{}
	}
	b, err := s.store.Circuit(ctx, endpointID)
	if err != nil {
		return Hold{}
	}
	v := circuit.TakesAttempts(true, true, b, s.circuit, s.now())
	if v.Allowed {
		return Hold{}
	}
	until := v.Wait.UTC()
	return Hold{By: HoldCircuitOpen, Until: &until}
}

// redriveDeadLetter is RedriveDeadLetter without its span.
func (s *Server) redriveDeadLetter(ctx context.Context, id, reason string) error {
	info, err := s.deadLetter(ctx, id)
	if err != nil {
		return err
	}
	if err := s.refuseExpunged(ctx, s.refOf(info).EventID); err != nil {
		return err
	}
	sig := delivery.RedriveSignal{By: authz.FromContext(ctx).Actor(), Reason: reason}
	err = s.temporal.SignalWorkflow(ctx, delivery.DeadLetterID(id), "", delivery.SignalRedrive, sig)
	if err != nil {
		return fromTemporal(err, "signal redrive", "no waiting dead letter with this delivery ID")
	}
	s.log.InfoContext(ctx, "redrive requested", "delivery_id", id, "by", sig.By)
	return nil
}

// redriveMany starts a redrive job (a RedriveJob workflow) that signals
// redrive to every matching dead letter at the rate asked. Temporal runs
// it to the end, resuming after any crash; GET .../redrive/{job} reports
// progress.
func (s *Server) redriveMany(w http.ResponseWriter, r *http.Request) {
	var body wire.BulkRedriveRequest
	if err := s.decode(w, r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	f := bulkRedriveFilter(body)
	if f.isZero() && !wire.Deref(body.All) {
		if err := checkRedriveRate(body.Rate); err != nil {
			s.writeError(w, r, err)
			return
		}
		s.writeError(w, r, invalid("all", "a bulk redrive needs a filter (tenant_id, endpoint_id, event_type, reasons, since or until) or \"all\": true"))
		return
	}
	out, err := s.RedriveDeadLetters(r.Context(), f, body.Rate, wire.Deref(body.Reason))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	status := http.StatusAccepted
	if out.Matched == 0 {
		status = http.StatusOK
	}
	writeJSON(w, status, out)
}

// bulkRedriveFilter is the filter of a bulk redrive's body.
func bulkRedriveFilter(b wire.BulkRedriveRequest) deadLetterFilter {
	f := deadLetterFilter{TenantID: wire.Deref(b.TenantID), EndpointID: wire.Deref(b.EndpointID), EventType: wire.Deref(b.EventType),
		Since: b.Since, Until: b.Until}
	if b.Reasons != nil {
		f.Reasons = make([]string, 0, len(*b.Reasons))
		for _, r := range *b.Reasons {
			f.Reasons = append(f.Reasons, string(r))
		}
	}
	return f
}

// checkRedriveRate refuses a bulk redrive's rate out of its bounds (nil:
// the default).
func checkRedriveRate(rate *float64) error {
	if rate != nil && !(*rate >= MinRedriveRate && *rate <= MaxRedriveRate) {
		return invalid("rate", "must be %g to %d redrives per second", MinRedriveRate, MaxRedriveRate)
	}
	return nil
}

// RedriveStarted is the answer of a bulk redrive: no job starts when
// Matched is zero; HeldBy is set for a bulk redrive of one endpoint whose
// circuit is open.
type RedriveStarted = wire.RedriveStarted

// redriveDeadLetters is RedriveDeadLetters without its span.
func (s *Server) redriveDeadLetters(ctx context.Context, f DeadLetterFilter, rateIn *float64, reason string) (RedriveStarted, error) {
	if err := checkRedriveRate(rateIn); err != nil {
		return RedriveStarted{}, err
	}
	rate := float64(DefaultRedriveRate)
	if rateIn != nil {
		rate = *rateIn
	}
	sc := authz.FromContext(ctx)
	if f.TenantID == "" && !sc.IsPlatform() {
		return RedriveStarted{}, &Error{Code: CodeForbidden, Field: "tenant_id",
			Message: "a bulk redrive across tenants needs the platform's API key; name your tenant_id"}
	}
	q, err := s.deadLetterQuery(ctx, f)
	if err != nil {
		return RedriveStarted{}, err
	}
	matched, err := visibility.Count(ctx, s.temporal, q)
	if err != nil {
		return RedriveStarted{}, fromTemporal(err, "count dead letters", "")
	}
	if matched == 0 {
		return RedriveStarted{JobID: emptyJobID(s.now(), f.TenantID), Rate: rate}, nil
	}
	job := redriveJobID(f.TenantID)
	out := RedriveStarted{JobID: job, Matched: matched, Rate: rate}
	sig := delivery.RedriveSignal{By: sc.Actor(), Reason: reason}
	if sig.Reason == "" {
		sig.Reason = "bulk redrive " + job
	}
	opts := client.StartWorkflowOptions{
		ID: job, TaskQueue: delivery.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}
	if tenant, err := s.tenantFilter(ctx, f.TenantID); err == nil && !tenant.All && tenant.ID != "" {
		attrs := []temporal.SearchAttributeUpdate{delivery.AttrTenantID.ValueSet(tenant.ID)}
		if tenant.Incarnation != "" {
			attrs = append(attrs, delivery.AttrTenantIncarnation.ValueSet(tenant.Incarnation))
		}
		opts.TypedSearchAttributes = temporal.NewSearchAttributes(attrs...)
	}
	in := delivery.RedriveJobInput{Query: q.String(), Rate: rate, Signal: sig, Total: matched}
	if _, err := s.temporal.ExecuteWorkflow(ctx, opts, delivery.WorkflowRedriveJob, in); err != nil {
		return RedriveStarted{}, fromTemporal(err, "start bulk redrive", "")
	}
	s.log.InfoContext(ctx, "bulk redrive started", "job_id", job, "matched", out.Matched, "rate", rate, "by", sig.By)
	out.HeldBy, out.HeldUntil = s.heldBy(ctx, f.EndpointID).wire()
	return out, nil
}

// RedriveProgress is where a bulk redrive stands: State is running,
// completed or failed; Skipped counts dead letters that closed (redriven
// or expired) between the job's listing and its signal.
type RedriveProgress = wire.RedriveJob

func (s *Server) redriveJob(w http.ResponseWriter, r *http.Request) {
	out, err := s.RedriveJob(r.Context(), chi.URLParam(r, "job"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// RedriveJob reports a bulk redrive's progress, if the scope of ctx may
// see the job.
func (s *Server) RedriveJob(ctx context.Context, job string) (RedriveProgress, error) {
	if err := authz.FromContext(ctx).Check(redriveJobTenant(job)); err != nil {
		return RedriveProgress{}, &Error{Code: CodeNotFound, Message: "no such redrive job"}
	}
	if out, ok := emptyJob(job); ok {
		return out, nil
	}
	desc, err := s.temporal.DescribeWorkflowExecution(ctx, job, "")
	if err == nil && desc.GetWorkflowExecutionInfo().GetType().GetName() == delivery.WorkflowRedriveJob {
		return s.redriveJobProgress(ctx, job, desc)
	}
	// A job started before hookd paced redrives itself: a batch operation.
	resp, err := s.temporal.WorkflowService().DescribeBatchOperation(ctx, &workflowservice.DescribeBatchOperationRequest{Namespace: s.namespace, JobId: job})
	if err != nil {
		return RedriveProgress{}, fromTemporal(err, "describe redrive job", "no such redrive job")
	}
	out := RedriveProgress{
		JobID: job, State: wire.RedriveJobState(batchState(resp.GetState().String())), Total: resp.GetTotalOperationCount(),
		Completed: resp.GetCompleteOperationCount(), Failed: resp.GetFailureOperationCount(),
		Started: resp.GetStartTime().AsTime(), Reason: resp.GetReason(),
	}
	if resp.GetCloseTime() != nil {
		out.Closed = resp.GetCloseTime().AsTime()
	}
	return out, nil
}

// redriveJobID is a new bulk redrive's job ID. A redrive of one tenant's
// dead letters carries the tenant after the random part, which holds no
// "_": who may read a job follows from its ID.
func redriveJobID(tenantID string) string {
	id := delivery.NewID(delivery.PrefixRedriveJob)
	if tenantID != "" {
		id += "_" + tenantID
	}
	return id
}

// redriveJobTenant is the tenant of a job ID from redriveJobID, "" for a
// redrive across tenants.
func redriveJobTenant(job string) string {
	_, tenant, _ := strings.Cut(strings.TrimPrefix(job, delivery.PrefixRedriveJob), "_")
	return tenant
}

func batchState(s string) string {
	const prefix = "BATCH_OPERATION_STATE_"
	if len(s) > len(prefix) {
		s = s[len(prefix):]
	}
	return strings.ToLower(s)
}

// emptyJobPrefix marks the job of a bulk redrive that matched nothing. No
// batch operation runs for it (Temporal runs few at a time); its ID holds
// when it was asked (and, like every job ID, its tenant), and GET answers
// from the ID alone.
const emptyJobPrefix = delivery.PrefixRedriveJob + "none-"

func emptyJobID(at time.Time, tenantID string) string {
	id := emptyJobPrefix + strconv.FormatInt(at.Unix(), 10) + delivery.NewID("-")
	if tenantID != "" {
		id += "_" + tenantID
	}
	return id
}

// emptyJob is the state of a job emptyJobID named: completed at once,
// with nothing to do.
func emptyJob(job string) (RedriveProgress, bool) {
	rest, ok := strings.CutPrefix(job, emptyJobPrefix)
	secs, _, _ := strings.Cut(rest, "-")
	n, err := strconv.ParseInt(secs, 10, 64)
	if !ok || err != nil {
		return RedriveProgress{}, false
	}
	at := time.Unix(n, 0).UTC()
	return RedriveProgress{JobID: job, State: wire.RedriveJobStateCompleted, Started: at, Closed: at, Reason: "no dead letter matched"}, true
}

// redriveJobProgress reads a redrive job workflow's progress, if the scope
// of ctx may see it (its tenant and incarnation): the result of a closed
// job, or the pages done (state query) plus the page in flight (its
// activity's heartbeat) of a running one.
func (s *Server) redriveJobProgress(ctx context.Context, job string, desc *workflowservice.DescribeWorkflowExecutionResponse) (RedriveProgress, error) {
	info := desc.GetWorkflowExecutionInfo()
	attrs := info.GetSearchAttributes().GetIndexedFields()
	if err := s.res.Owned(ctx, keyword(attrs, delivery.AttrTenantID.GetName()), keyword(attrs, delivery.AttrTenantIncarnation.GetName())); err != nil {
		return RedriveProgress{}, &Error{Code: CodeNotFound, Message: "no such redrive job"}
	}
	var in delivery.RedriveJobInput
	if err := s.firstInput(ctx, job, info.GetExecution().GetRunId(), &in); err != nil {
		return RedriveProgress{}, err
	}
	out := RedriveProgress{JobID: job, Total: in.Total, Started: info.GetStartTime().AsTime(), Reason: in.Signal.Reason}
	var p delivery.RedriveProgress
	switch info.GetStatus() {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		out.State = wire.RedriveJobStateRunning
		if v, err := s.temporal.QueryWorkflow(ctx, job, "", delivery.QueryRedriveProgress); err == nil {
			_ = v.Get(&p)
		}
		for _, pa := range desc.GetPendingActivities() {
			var hb delivery.RedriveHeartbeat
			if details := pa.GetHeartbeatDetails(); details != nil && s.dc.FromPayloads(details, &hb) == nil {
				p = p.Add(hb.RedriveProgress)
			}
		}
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		out.State = wire.RedriveJobStateCompleted
		if err := s.temporal.GetWorkflow(ctx, job, "").Get(ctx, &p); err != nil {
			return RedriveProgress{}, fromTemporal(err, "read redrive job", "")
		}
	default:
		out.State = wire.RedriveJobStateFailed
	}
	out.Completed, out.Skipped, out.Failed = p.Completed, p.Skipped, p.Failed
	if info.GetCloseTime() != nil {
		out.Closed = info.GetCloseTime().AsTime()
	}
	return out, nil
}

// firstInput decodes the input of a run's first event (its start).
func (s *Server) firstInput(ctx context.Context, id, runID string, v any) error {
	it := s.temporal.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return &Error{Code: CodeNotFound, Message: "no such redrive job"}
	}
	ev, err := it.Next()
	if err != nil {
		return fromTemporal(err, "read redrive job", "no such redrive job")
	}
	return s.dc.FromPayloads(ev.GetWorkflowExecutionStartedEventAttributes().GetInput(), v)
}
