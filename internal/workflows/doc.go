// Package workflows holds hookd's deterministic orchestration: one Delivery
// workflow per (event, endpoint), one DeadLetter workflow per dead
// delivery, one Wake workflow per endpoint whose waiting deliveries are
// being woken, and one RedriveJob workflow per bulk redrive. Workflows
// refer to activities by name and import neither the endpoint store nor
// net/http.
package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
)

// Registry is the part of a worker that workflows register with.
type Registry interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
}

// Register registers every hookd workflow under its name.
func Register(r Registry) {
	r.RegisterWorkflowWithOptions(Delivery, workflow.RegisterOptions{Name: delivery.WorkflowDelivery})
	r.RegisterWorkflowWithOptions(DeadLetter, workflow.RegisterOptions{Name: delivery.WorkflowDeadLetter})
	r.RegisterWorkflowWithOptions(RedriveJob, workflow.RegisterOptions{Name: delivery.WorkflowRedriveJob})
	r.RegisterWorkflowWithOptions(Wake, workflow.RegisterOptions{Name: delivery.WorkflowWake})
	r.RegisterWorkflowWithOptions(TenantExpunge, workflow.RegisterOptions{Name: delivery.WorkflowTenantExpunge})
}
