// Package worker runs hookd's Temporal worker: it registers the delivery and
// dead-letter workflows and the activities on hookd's task queue. Workers
// are stateless; run as many as the load needs against one Temporal cluster.
package worker

import (
	"cmp"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/workflows"
)

// Options tunes a worker. The zero value is a sensible default.
type Options struct {
	// MaxConcurrentAttempts bounds the HTTP attempts in flight (local and
	// regular activities each); zero means DefaultMaxConcurrentAttempts.
	MaxConcurrentAttempts int
	// MaxAttemptsPerEndpoint bounds one endpoint's attempts in flight in
	// this worker, first attempts and retries together, so no endpoint
	// takes every slot (a receiver that holds each attempt to its
	// timeout); zero means EndpointShare(MaxConcurrentAttempts), negative
	// leaves it unbounded. An attempt over the share is deferred without
	// counting (activities.LimitEndpoints).
	MaxAttemptsPerEndpoint int
	// StopTimeout is how long a stop waits for in-flight attempts before
	// handing them back to Temporal; zero is the SDK's default.
	StopTimeout time.Duration
	// WorkflowTaskPollers is how many workflow-task polls the worker
	// keeps open (sticky and normal together); zero means
	// DefaultWorkflowTaskPollers.
	WorkflowTaskPollers int
}

// DefaultWorkflowTaskPollers is the workflow-task polls a worker keeps
// open, instead of the SDK's 2. Eagerly started deliveries bring their
// first task in the start's answer, but a delivery whose start was
// delayed (a rate-limited endpoint's backlog) or that wakes from a timer
// gets its task through matching. Beside a flood of eager starts, two
// polls (one of them on the sticky queue) left those tasks waiting
// seconds for a poller, and the rate-limited endpoint fell behind its
// limit (docs/performance.md).
const DefaultWorkflowTaskPollers = 8

// DefaultWorkflowCacheSize is the workflow cache hookd runs with, instead
// of the SDK's 10,000: parked deliveries (a receiver down, a circuit open)
// otherwise each keep their state, a goroutine included, in memory while
// they wait (docs/performance.md).
const DefaultWorkflowCacheSize = 1000

// SizeWorkflowCache bounds the workflow executions whose state the process
// keeps between workflow tasks (the SDK's sticky cache) to n; zero or less
// means DefaultWorkflowCacheSize. An evicted delivery replays its short
// history when it next wakes. The cache is shared by every SDK worker in
// the process, an embedded Temporal server's own system workers included,
// and sized when the first of them starts: call this before starting
// anything.
func SizeWorkflowCache(n int) {
	sdkworker.SetStickyWorkflowCacheSize(cmp.Or(max(n, 0), DefaultWorkflowCacheSize))
}

// DefaultMaxConcurrentAttempts is a worker's HTTP attempts in flight when
// Options sets none.
const DefaultMaxConcurrentAttempts = 256

// EndpointShare is the attempts one endpoint may have in flight in a
// worker running n at once: a quarter, at least one.
func EndpointShare(n int) int { return max(1, n/4) }

// perEndpoint is the share opts give one endpoint; zero means unbounded.
func (opts Options) perEndpoint() int {
	switch n := opts.MaxAttemptsPerEndpoint; {
	case n < 0:
		return 0
	case n > 0:
		return n
	}
	return EndpointShare(cmp.Or(max(opts.MaxConcurrentAttempts, 0), DefaultMaxConcurrentAttempts))
}

// New returns a worker, not yet started, for hookd's task queue. It bounds
// each endpoint's share of acts' attempts (Options.MaxAttemptsPerEndpoint).
func New(c client.Client, acts *activities.Activities, opts Options) sdkworker.Worker {
	n := cmp.Or(max(opts.MaxConcurrentAttempts, 0), DefaultMaxConcurrentAttempts)
	activities.LimitEndpoints(acts, opts.perEndpoint())
	w := sdkworker.New(c, delivery.TaskQueue, sdkworker.Options{
		MaxConcurrentActivityExecutionSize:      n,
		MaxConcurrentLocalActivityExecutionSize: n,
		MaxConcurrentWorkflowTaskExecutionSize:  n,
		WorkerStopTimeout:                       opts.StopTimeout,
		MaxConcurrentWorkflowTaskPollers:        cmp.Or(max(opts.WorkflowTaskPollers, 0), DefaultWorkflowTaskPollers),
	})
	workflows.Register(w)
	Register(w, acts)
	w.RegisterActivityWithOptions((&activities.Redrive{Temporal: c}).Page, activity.RegisterOptions{Name: delivery.ActivityRedrivePage})
	return w
}

// Register registers the activities under the names workflows call them by.
func Register(r sdkworker.ActivityRegistry, acts *activities.Activities) {
	for name, fn := range map[string]any{
		delivery.ActivityFirstAttempt:  acts.FirstAttempt,
		delivery.ActivityRetry:         acts.Retry,
		delivery.ActivityDeadLetter:    acts.DeadLetter,
		delivery.ActivityRedrive:       acts.StartRedrive,
		delivery.ActivityAdmit:         acts.Admit,
		delivery.ActivityWakeAttempt:   acts.WakeAttempt,
		delivery.ActivityWakePage:      acts.WakePage,
		delivery.ActivityTakesAttempts: acts.TakesAttempts,
		delivery.ActivityRecovered:     acts.DeliveryRecovered,
		delivery.ActivityExpungePage:   acts.ExpungePage,
	} {
		r.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
}
