package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
)

// A delivery delivered after failing announces it once, through the
// DeliveryRecovered activity, with its request but not its body; one
// delivered at once, a redriven run aside, announces nothing, and neither
// does a delivery of hookd's own events.
func TestDeliveredAfterFailingIsAnnounced(t *testing.T) {
	schedule := []time.Duration{time.Second, time.Second, time.Second}
	for _, tc := range []struct {
		name     string
		outcomes []delivery.Outcome
		typ      string
		redrive  bool
		want     int // announcements
	}{
		{name: "delivered at once", outcomes: []delivery.Outcome{success}},
		{name: "delivered on attempt 3", outcomes: retryableThen(2, success), want: 3},
		{name: "a redriven run delivered at once", outcomes: []delivery.Outcome{success}, redrive: true, want: 1},
		{name: "an operational event's delivery", outcomes: retryableThen(2, success), typ: "hookd.endpoint.created"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			env.fakes.outcome = outcomes(tc.outcomes...)
			req := newRequest("recovered", schedule)
			if tc.typ != "" {
				req.EventType = tc.typ
			}
			if tc.redrive {
				req.Redrive, req.Run = &delivery.Redrive{By: "op", Reason: "fixed", At: t0}, 2
			}
			env.ExecuteWorkflow(delivery.WorkflowDelivery, req)
			require.True(t, env.IsWorkflowCompleted())
			require.NoError(t, env.GetWorkflowError())
			got := env.fakes.recovered()
			if tc.want == 0 {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, tc.want, got[0].Attempts)
			assert.Equal(t, req.DeliveryID, got[0].Request.DeliveryID)
			assert.Empty(t, got[0].Request.Body, "the body stays out of the announcement")
		})
	}
}
