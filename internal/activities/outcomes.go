package activities

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/hookd/hookd/internal/delivery"
)

// Bounds of localOutcomes: how many it keeps (the oldest go first) and
// for how long.
const (
	outcomesKept = 4096
	outcomeTTL   = time.Minute
)

// localOutcomes remembers, for a while, what each local attempt this
// worker made returned, by its run and activity ID. Temporal records a
// local activity's result in the completion of the workflow task that ran
// it. When the server refuses that completion (a signal came while the
// run was completing: UnhandledCommand), the run replays without the
// result and runs the local activity again, under the same IDs; answered
// from here, the receiver does not get the attempt a second time. Best
// effort: on another worker, or once forgotten, the attempt is made
// again, with the same webhook-id.
type localOutcomes struct {
	mu   sync.Mutex
	m    map[string]outcome
	keys [outcomesKept]string // a ring: keys[next] is the oldest
	next int
}

type outcome struct {
	at      delivery.Attempt
	expires time.Time
}

// localKey is the local activity's run and activity ID, or "" outside a
// local activity.
func localKey(ctx context.Context) string {
	if !activity.IsActivity(ctx) {
		return ""
	}
	info := activity.GetInfo(ctx)
	if !info.IsLocalActivity {
		return ""
	}
	return info.WorkflowExecution.RunID + "/" + info.ActivityID
}

// once returns what the local activity of ctx returned before, if this
// worker ran it and remembers, or makes the attempt and remembers it.
func (o *localOutcomes) once(ctx context.Context, now time.Time, attempt func() delivery.Attempt) delivery.Attempt {
	key := localKey(ctx)
	if key == "" {
		return attempt()
	}
	if at, ok := o.get(key, now); ok {
		return at
	}
	at := attempt()
	o.put(key, at, now)
	return at
}

// get is what key's local activity returned, kept until it expires or
// is pushed out (a completion can be refused more than once).
func (o *localOutcomes) get(key string, now time.Time) (delivery.Attempt, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, ok := o.m[key]
	if !ok || now.After(e.expires) {
		return delivery.Attempt{}, false
	}
	return e.at, true
}

// put keeps at as key's outcome, pushing out the oldest beyond
// outcomesKept.
func (o *localOutcomes) put(key string, at delivery.Attempt, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = make(map[string]outcome, outcomesKept)
	}
	if old := o.keys[o.next]; old != "" {
		delete(o.m, old)
	}
	o.keys[o.next] = key
	o.next = (o.next + 1) % outcomesKept
	o.m[key] = outcome{at: at, expires: now.Add(outcomeTTL)}
}
