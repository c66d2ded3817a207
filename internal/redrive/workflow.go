package redrive

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
)

// Names the workflow, its query and its activity are registered under.
const (
	WorkflowJob  = "RedriveJob"
	QueryState   = "progress"
	ActivityPage = "RedrivePage"
)

// PageSize is the dead letters one activity lists and signals.
const PageSize = 100

// pagesPerRun bounds a run's history; the job continues as new after it.
const pagesPerRun = 200

// JobInput is a bulk redrive job: what to signal, how fast, and how far
// it got (carried across continue-as-new).
type JobInput struct {
	// Query selects the waiting dead letters (WorkflowType = 'DeadLetter'
	// AND ExecutionStatus = 'Running' AND ...).
	Query string `json:"query"`
	// Rate is redrive signals per second.
	Rate   float64                `json:"rate"`
	Signal delivery.RedriveSignal `json:"signal"`
	// Total is how many dead letters matched when the job was asked.
	Total int64 `json:"total"`
	// Cursor is the visibility page token of the next page; Progress what
	// earlier runs did.
	Cursor   []byte   `json:"cursor,omitempty"`
	Progress Progress `json:"progress"`
}

// Progress counts a job's signals: Completed sent, Skipped for dead
// letters that had closed meanwhile (redriven or expired), Failed that
// could not be sent.
type Progress struct {
	Completed int64 `json:"completed"`
	Skipped   int64 `json:"skipped"`
	Failed    int64 `json:"failed"`
}

// Add is p plus q.
func (p Progress) Add(q Progress) Progress {
	return Progress{Completed: p.Completed + q.Completed, Skipped: p.Skipped + q.Skipped, Failed: p.Failed + q.Failed}
}

// PageInput is one activity's work: a page of the query from Cursor.
type PageInput struct {
	Query  string                 `json:"query"`
	Cursor []byte                 `json:"cursor,omitempty"`
	Rate   float64                `json:"rate"`
	Signal delivery.RedriveSignal `json:"signal"`
	// Wait says to wait one interval before the page's first signal (every
	// page but the job's first), so pages keep the pace.
	Wait bool `json:"wait,omitempty"`
}

// PageResult is what a page did, and the next page's cursor (nil when the
// query has no more).
type PageResult struct {
	Progress
	Next []byte `json:"next,omitempty"`
}

// Job signals redrive to every dead letter in.Query at in.Rate, page by
// page, and returns its progress. The state query answers the pages done
// so far (the page in flight is in its activity's heartbeat).
func Job(ctx workflow.Context, in JobInput) (Progress, error) {
	if err := workflow.SetQueryHandler(ctx, QueryState, func() (Progress, error) { return in.Progress, nil }); err != nil {
		return in.Progress, err
	}
	perPage := time.Duration(float64(PageSize) / in.Rate * float64(time.Second))
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: perPage + 5*time.Minute,
		HeartbeatTimeout:    10 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	for pages := 0; ; pages++ {
		if pages == pagesPerRun {
			return in.Progress, workflow.NewContinueAsNewError(ctx, Job, in)
		}
		var res PageResult
		page := PageInput{Query: in.Query, Cursor: in.Cursor, Rate: in.Rate, Signal: in.Signal, Wait: in.Progress != (Progress{})}
		if err := workflow.ExecuteActivity(actx, ActivityPage, page).Get(ctx, &res); err != nil {
			return in.Progress, err
		}
		in.Progress = in.Progress.Add(res.Progress)
		in.Cursor = res.Next
		if len(res.Next) == 0 {
			return in.Progress, nil
		}
	}
}

// Register registers the workflow on a worker.
func Register(r interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
}) {
	r.RegisterWorkflowWithOptions(Job, workflowRegisterOptions())
}

// workflowRegisterOptions names the workflow as the API starts it.
func workflowRegisterOptions() workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: WorkflowJob}
}
