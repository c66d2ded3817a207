package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	batchpb "go.temporal.io/api/batch/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/delivery"
	"github.com/hookd/hookd/visibility"
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
	if _, err := s.deadLetter(r, id); err != nil {
		s.writeError(w, r, err)
		return
	}
	sig := delivery.RedriveSignal{By: scope(r).Actor(), Reason: body.Reason}
	err := s.temporal.SignalWorkflow(r.Context(), delivery.DeadLetterID(id), "", delivery.SignalRedrive, sig)
	if err != nil {
		s.writeError(w, r, fromTemporal(err, "signal redrive", "no waiting dead letter with this delivery ID"))
		return
	}
	s.log.Info("redrive requested", "delivery_id", id, "by", sig.By)
	writeJSON(w, http.StatusAccepted, map[string]string{"delivery_id": id, "status": "redrive requested"})
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
	rate := float64(DefaultRedriveRate)
	if body.Rate != nil {
		if !(*body.Rate >= MinRedriveRate && *body.Rate <= MaxRedriveRate) {
			s.writeError(w, r, invalid("rate", "must be %g to %d redrives per second", MinRedriveRate, MaxRedriveRate))
			return
		}
		rate = *body.Rate
	}
	if body.TenantID == "" && !scope(r).IsPlatform() {
		s.writeError(w, r, &Error{Code: CodeForbidden, Field: "tenant_id",
			Message: "a bulk redrive across tenants needs the platform's API key; name your tenant_id"})
		return
	}
	q, err := s.deadLetterQuery(r, body.deadLetterFilter)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	matched, err := visibility.Count(r.Context(), s.temporal, q)
	if err != nil {
		s.writeError(w, r, fromTemporal(err, "count dead letters", ""))
		return
	}
	if matched == 0 {
		writeJSON(w, http.StatusOK, map[string]any{"job_id": emptyJobID(s.now(), body.TenantID), "matched": 0, "rate": rate})
		return
	}
	job := redriveJobID(body.TenantID)
	out := map[string]any{"job_id": job, "matched": matched, "rate": rate}
	sig := delivery.RedriveSignal{By: scope(r).Actor(), Reason: body.Reason}
	if sig.Reason == "" {
		sig.Reason = "bulk redrive " + job
	}
	input, err := s.dc.ToPayloads(sig)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	_, err = s.temporal.WorkflowService().StartBatchOperation(r.Context(), &workflowservice.StartBatchOperationRequest{
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
		s.writeError(w, r, fromTemporal(err, "start bulk redrive", ""))
		return
	}
	s.log.Info("bulk redrive started", "job_id", job, "matched", matched, "rate", rate, "by", sig.By)
	writeJSON(w, http.StatusAccepted, out)
}

func (s *Server) redriveJob(w http.ResponseWriter, r *http.Request) {
	job := chi.URLParam(r, "job")
	if err := scope(r).Check(redriveJobTenant(job)); err != nil {
		s.writeError(w, r, &Error{Code: CodeNotFound, Message: "no such redrive job"})
		return
	}
	if out, ok := emptyJob(job); ok {
		writeJSON(w, http.StatusOK, out)
		return
	}
	resp, err := s.temporal.WorkflowService().DescribeBatchOperation(r.Context(), &workflowservice.DescribeBatchOperationRequest{Namespace: s.namespace, JobId: job})
	if err != nil {
		s.writeError(w, r, fromTemporal(err, "describe redrive job", "no such redrive job"))
		return
	}
	out := map[string]any{
		"job_id":    job,
		"state":     batchState(resp.GetState().String()),
		"total":     resp.GetTotalOperationCount(),
		"completed": resp.GetCompleteOperationCount(),
		"failed":    resp.GetFailureOperationCount(),
		"started":   resp.GetStartTime().AsTime(),
		"reason":    resp.GetReason(),
	}
	if resp.GetCloseTime() != nil {
		out["closed"] = resp.GetCloseTime().AsTime()
	}
	writeJSON(w, http.StatusOK, out)
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
func emptyJob(job string) (map[string]any, bool) {
	rest, ok := strings.CutPrefix(job, emptyJobPrefix)
	secs, _, _ := strings.Cut(rest, "-")
	n, err := strconv.ParseInt(secs, 10, 64)
	if !ok || err != nil {
		return nil, false
	}
	at := time.Unix(n, 0).UTC()
	return map[string]any{
		"job_id": job, "state": "completed", "total": 0, "completed": 0, "failed": 0,
		"started": at, "closed": at, "reason": "no dead letter matched",
	}, true
}
