package app

import (
	"time"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/embedded"
)

// Tuning departs from hookd dev's measured defaults: the levers the
// benchmark compares and the short waits the end-to-end tests need.
// hookd dev's flags never set it, so a user's configuration cannot; the
// zero value is the product's behaviour.
type Tuning struct {
	// DisabledPoll is how often deliveries to a disabled endpoint check
	// again (zero: activities.DefaultDisabledPoll, an hour).
	DisabledPoll time.Duration
	// RecoverImmediate is the largest backlog an endpoint recover signals
	// at once; a larger one is woken at the drain's pace (zero:
	// wake.Immediate).
	RecoverImmediate int
	// WorkflowTaskPollers is the workflow-task polls the worker keeps open
	// (zero: worker.DefaultWorkflowTaskPollers).
	WorkflowTaskPollers int
	// Temporal departs from the embedded server's measured defaults.
	Temporal embedded.Tuning
	// Guard, when set, replaces hookd dev's guard (loopback allowed), for
	// tests of refused destinations.
	Guard *activities.Guard
}

// guard is the guard of hookd dev's deliveries: by default it allows
// loopback, since hookd dev delivers to local receivers.
func (t Tuning) guard() activities.Guard {
	if t.Guard != nil {
		return *t.Guard
	}
	return activities.Guard{AllowLoopback: true}
}
