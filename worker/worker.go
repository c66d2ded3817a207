// Package worker runs hookd's Temporal worker: it registers the delivery and
// dead-letter workflows and the activities on hookd's task queue. Workers
// are stateless; run as many as the load needs against one Temporal cluster.
package worker

import (
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/hookd/hookd/activities"
	"github.com/hookd/hookd/delivery"
	"github.com/hookd/hookd/workflows"
)

// Options tunes a worker. The zero value is a sensible default.
type Options struct {
	// MaxConcurrentAttempts bounds the HTTP attempts in flight (local and
	// regular activities each); zero means 256.
	MaxConcurrentAttempts int
}

// New returns a worker, not yet started, for hookd's task queue.
func New(c client.Client, acts *activities.Activities, opts Options) sdkworker.Worker {
	n := opts.MaxConcurrentAttempts
	if n <= 0 {
		n = 256
	}
	w := sdkworker.New(c, delivery.TaskQueue, sdkworker.Options{
		MaxConcurrentActivityExecutionSize:      n,
		MaxConcurrentLocalActivityExecutionSize: n,
		MaxConcurrentWorkflowTaskExecutionSize:  n,
	})
	workflows.Register(w)
	Register(w, acts)
	return w
}

// Register registers the activities under the names workflows call them by.
func Register(r sdkworker.ActivityRegistry, acts *activities.Activities) {
	for name, fn := range map[string]any{
		delivery.ActivityFirstAttempt: acts.FirstAttempt,
		delivery.ActivityRetry:        acts.Retry,
		delivery.ActivityDeadLetter:   acts.DeadLetter,
		delivery.ActivityRedrive:      acts.StartRedrive,
	} {
		r.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
}
