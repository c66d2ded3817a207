package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
)

// A tenant's expunge job goes page by page to the last and returns what
// the pages did.
func TestTenantExpungeGoesThroughEveryPage(t *testing.T) {
	env := newTestEnv(t)
	env.ExecuteWorkflow(delivery.WorkflowTenantExpunge, delivery.TenantExpungeInput{TenantID: "acme", Incarnation: "i1", By: "api-key:1", At: t0})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var p delivery.ExpungeProgress
	require.NoError(t, env.GetWorkflowResult(&p))
	require.Equal(t, delivery.ExpungeProgress{Expunged: 219, Already: 1}, p)
}
