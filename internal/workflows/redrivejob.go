package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
)

// redrivePagesPerRun bounds a RedriveJob run's history; the job continues
// as new after it.
const redrivePagesPerRun = 200

// RedriveJob signals redrive to every dead letter in.Query at in.Rate, page by
// page, and returns its progress. The state query answers the pages done
// so far (the page in flight is in its activity's heartbeat).
func RedriveJob(ctx workflow.Context, in delivery.RedriveJobInput) (delivery.RedriveProgress, error) {
	if err := workflow.SetQueryHandler(ctx, delivery.QueryRedriveProgress, func() (delivery.RedriveProgress, error) { return in.Progress, nil }); err != nil {
		return in.Progress, err
	}
	perPage := time.Duration(float64(delivery.RedrivePageSize) / in.Rate * float64(time.Second))
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: perPage + 5*time.Minute,
		HeartbeatTimeout:    10 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	for pages := 0; ; pages++ {
		if pages == redrivePagesPerRun {
			return in.Progress, workflow.NewContinueAsNewError(ctx, RedriveJob, in)
		}
		var res delivery.RedrivePageResult
		page := delivery.RedrivePageInput{Query: in.Query, Cursor: in.Cursor, Rate: in.Rate, Signal: in.Signal, Wait: in.Progress != (delivery.RedriveProgress{})}
		if err := workflow.ExecuteActivity(actx, delivery.ActivityRedrivePage, page).Get(ctx, &res); err != nil {
			return in.Progress, err
		}
		in.Progress = in.Progress.Add(res.RedriveProgress)
		in.Cursor = res.Next
		if len(res.Next) == 0 {
			return in.Progress, nil
		}
	}
}
