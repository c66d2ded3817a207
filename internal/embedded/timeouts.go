package embedded

import "go.temporal.io/server/service/history/tasks"

// startTimeoutsSize bounds the runs whose start timeouts are kept: at a
// few hundred deliveries a second, longer than a workflow task's 10 s
// timeout.
const startTimeoutsSize = 4096

// startTimeouts keeps the keys of the workflow-task timeout timers each
// run was created with, until the run closes. An eagerly started
// delivery's first workflow task comes back in its start's answer with a
// 10 s timeout timer; the delivery closes milliseconds later, but the
// timer stays: Temporal marks a completed task's timers for deletion only
// while it holds them in memory, which a newly created run is not. Left
// in place, it fires 10 s later and reads the closed run's mutable state
// back (one query per state table) to learn it has nothing to do. A
// timer of a closed run does nothing, so deleting it changes nothing but
// that read.
type startTimeouts struct{ runs *runMap[[]tasks.Key] }

func newStartTimeouts() *startTimeouts {
	return &startTimeouts{runs: newRunMap[[]tasks.Key](startTimeoutsSize)}
}

// put keeps keys, run k's workflow-task timeout timers.
func (c *startTimeouts) put(k runKey, keys []tasks.Key) { c.runs.put(k, keys) }

// take returns and forgets run k's timers.
func (c *startTimeouts) take(k runKey) []tasks.Key {
	keys, _ := c.runs.take(k)
	return keys
}
