package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
)

// expungePagesPerRun bounds a TenantExpunge run's history; the job
// continues as new after it.
const expungePagesPerRun = 200

// TenantExpunge expunges every event of a deleted tenant, a page at a
// time (the ExpungePage activity, retried until it succeeds: the store or
// Temporal being down only delays it), and returns its progress. The
// progress query answers the pages done so far.
func TenantExpunge(ctx workflow.Context, in delivery.TenantExpungeInput) (delivery.ExpungeProgress, error) {
	if err := workflow.SetQueryHandler(ctx, delivery.QueryExpungeProgress, func() (delivery.ExpungeProgress, error) { return in.Progress, nil }); err != nil {
		return in.Progress, err
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		// A page cut short by a stopped worker is retried this soon.
		HeartbeatTimeout: 10 * time.Second,
		RetryPolicy:      &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	for pages := 0; ; pages++ {
		if pages == expungePagesPerRun {
			return in.Progress, workflow.NewContinueAsNewError(ctx, TenantExpunge, in)
		}
		var res delivery.ExpungePageResult
		page := delivery.ExpungePageInput{TenantID: in.TenantID, Incarnation: in.Incarnation, By: in.By, At: in.At, Cursor: in.Cursor}
		if err := workflow.ExecuteActivity(actx, delivery.ActivityExpungePage, page).Get(ctx, &res); err != nil {
			return in.Progress, err
		}
		in.Progress = in.Progress.Add(res.ExpungeProgress)
		in.Cursor = res.Next
		if res.Next == "" {
			return in.Progress, nil
		}
	}
}
