package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	batchpb "go.temporal.io/api/batch/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/visibility"
)

// Bulk redrive rates, in redrives per second. Temporal's batcher applies
// its own namespace limit too (worker.batcherRPS, 50 by default).
const (
	DefaultRedriveRate = 10
	MinRedriveRate     = 0.1
	MaxRedriveRate     = 1000
)

func (s *Server) redriveOne(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Reason string `json:"reason"`
	}
	if err := s.decode(w, r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	id := chi.URLParam(r, "id")
	if err := s.RedriveDeadLetter(r.Context(), id, body.Reason); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"delivery_id": id, "status": "redrive requested"})
}

// RedriveDeadLetter asks the dead letter of a delivery ID, if the scope of
// ctx may see it, to start a fresh run of the delivery, recording the
// scope's actor and reason.
func (s *Server) RedriveDeadLetter(ctx context.Context, id, reason string) error {
	if _, err := s.deadLetter(ctx, id); err != nil {
		return err
	}
	sig := delivery.RedriveSignal{By: authz.FromContext(ctx).Actor(), Reason: reason}
	err := s.temporal.SignalWorkflow(ctx, delivery.DeadLetterID(id), "", delivery.SignalRedrive, sig)
	if err != nil {
		return fromTemporal(err, "signal redrive", "no waiting dead letter with this delivery ID")
	}
	s.log.Info("redrive requested", "delivery_id", id, "by", sig.By)
	return nil
}

// redriveMany starts a Temporal batch operation that signals redrive to
// every matching dead letter at a bounded rate. Temporal runs it to the
// end, resuming after any crash; GET .../redrive/{job} reports progress.
func (s *Server) redriveMany(w http.ResponseWriter, r *http.Request) {
	var body struct {
		deadLetterFilter
		Rate   *float64 `json:"rate"`
		Reason string   `json:"reason"`
	}
	if err := s.decode(w, r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	out, err := s.RedriveDeadLetters(r.Context(), body.deadLetterFilter, body.Rate, body.Reason)
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

// RedriveStarted is the answer of a bulk redrive.
type RedriveStarted struct {
	JobID   string  `json:"job_id"`
	Matched int64   `json:"matched"` // no job starts when zero
	Rate    float64 `json:"rate"`
}

// RedriveDeadLetters starts a bulk redrive of the dead letters f selects
// in the scope of ctx, at rate per second (nil: DefaultRedriveRate). A
// tenant scope must name its tenant in f.
func (s *Server) RedriveDeadLetters(ctx context.Context, f DeadLetterFilter, rateIn *float64, reason string) (RedriveStarted, error) {
	rate := float64(DefaultRedriveRate)
	if rateIn != nil {
		if !(*rateIn >= MinRedriveRate && *rateIn <= MaxRedriveRate) {
			return RedriveStarted{}, invalid("rate", "must be %g to %d redrives per second", MinRedriveRate, MaxRedriveRate)
		}
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
	input, err := s.dc.ToPayloads(sig)
	if err != nil {
		return RedriveStarted{}, err
	}
	_, err = s.temporal.WorkflowService().StartBatchOperation(ctx, &workflowservice.StartBatchOperationRequest{
		Namespace:              s.namespace,
		VisibilityQuery:        q,
		JobId:                  job,
		Reason:                 sig.Reason,
		MaxOperationsPerSecond: float32(rate),
		Operation: &workflowservice.StartBatchOperationRequest_SignalOperation{SignalOperation: &batchpb.BatchOperationSignal{
			Signal: delivery.SignalRedrive, Input: input, Identity: sig.By,
		}},
	})
	if err != nil {
		return RedriveStarted{}, fromTemporal(err, "start bulk redrive", "")
	}
	s.log.Info("bulk redrive started", "job_id", job, "matched", out.Matched, "rate", rate, "by", sig.By)
	return out, nil
}

// RedriveProgress is where a bulk redrive stands.
type RedriveProgress struct {
	JobID string `json:"job_id"`
	// State is running, completed or failed.
	State     string     `json:"state"`
	Total     int64      `json:"total"`
	Completed int64      `json:"completed"`
	Failed    int64      `json:"failed"`
	Started   time.Time  `json:"started"`
	Reason    string     `json:"reason"`
	Closed    *time.Time `json:"closed,omitempty"`
}

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
	resp, err := s.temporal.WorkflowService().DescribeBatchOperation(ctx, &workflowservice.DescribeBatchOperationRequest{Namespace: s.namespace, JobId: job})
	if err != nil {
		return RedriveProgress{}, fromTemporal(err, "describe redrive job", "no such redrive job")
	}
	out := RedriveProgress{
		JobID: job, State: batchState(resp.GetState().String()), Total: resp.GetTotalOperationCount(),
		Completed: resp.GetCompleteOperationCount(), Failed: resp.GetFailureOperationCount(),
		Started: resp.GetStartTime().AsTime(), Reason: resp.GetReason(),
	}
	if resp.GetCloseTime() != nil {
		closed := resp.GetCloseTime().AsTime()
		out.Closed = &closed
	}
	return out, nil
}

// redriveJobPrefix starts every bulk redrive's job ID.
const redriveJobPrefix = "redrive_"

// redriveJobID is a new bulk redrive's job ID. A redrive of one tenant's
// dead letters carries the tenant after the random part, which holds no
// "_": who may read a job follows from its ID.
func redriveJobID(tenantID string) string {
	id := delivery.NewID(redriveJobPrefix)
	if tenantID != "" {
		id += "_" + tenantID
	}
	return id
}

// redriveJobTenant is the tenant of a job ID from redriveJobID, "" for a
// redrive across tenants.
func redriveJobTenant(job string) string {
	_, tenant, _ := strings.Cut(strings.TrimPrefix(job, redriveJobPrefix), "_")
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
const emptyJobPrefix = redriveJobPrefix + "none-"

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
	return RedriveProgress{JobID: job, State: "completed", Started: at, Closed: &at, Reason: "no dead letter matched"}, true
}
