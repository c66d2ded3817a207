package api

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
)

// tell makes one timeline of every run, the redrive between runs, the
// first run's creation time and the current run's status and next attempt.
func TestTellOneStory(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	rd := &delivery.Redrive{By: "api-key:1a2b3c4d", Reason: "fixed", At: t0.Add(time.Hour)}
	retry := delivery.Attempt{Number: 1, Start: rd.At, Status: 503, ErrorClass: "http_5xx", Outcome: delivery.OutcomeRetryable,
		NextDelay: 30 * time.Second, DelayReason: "schedule", NextAttempt: rd.At.Add(30 * time.Second)}
	runs := []runStory{
		{start: t0, res: delivery.Result{Status: delivery.StatusFailed, Attempts: []delivery.Attempt{{Number: 1, Start: t0, Status: 404, Outcome: delivery.OutcomePermanent}}}},
		{start: rd.At, redrive: rd, res: delivery.Result{Status: delivery.StatusPending, Attempts: []delivery.Attempt{retry}}},
	}

	out := tell(runs)
	assert.Equal(t, t0, out.CreatedAt)
	assert.Equal(t, wire.DeliveryStatusPending, out.Status)
	assert.Equal(t, 2, out.Runs)
	assert.Equal(t, 2, out.Attempts)
	assert.Equal(t, redriveOut(rd), out.Redrive)
	assert.Equal(t, 503, out.LastStatus)
	require.Len(t, out.Timeline, 3)
	assert.Equal(t, []wire.TimelineEntryKind{kindAttempt, kindRedrive, kindAttempt}, []wire.TimelineEntryKind{out.Timeline[0].Kind, out.Timeline[1].Kind, out.Timeline[2].Kind})
	assert.Equal(t, []int{1, 2, 2}, []int{out.Timeline[0].Run, out.Timeline[1].Run, out.Timeline[2].Run})
	assert.Equal(t, wire.Redrive{By: rd.By, Reason: rd.Reason, At: rd.At}, out.Timeline[1].Redrive)
	assert.Equal(t, retry.NextAttempt, out.NextAttemptAt, "the latest attempt's delay")
	assert.Equal(t, "schedule", out.WaitReason)

	// Waiting out a deferral: the wait, not the attempt's older delay.
	runs[1].res.WaitUntil, runs[1].res.WaitReason = t0.Add(3*time.Hour), delivery.WaitCircuitOpen
	out = tell(runs)
	assert.Equal(t, t0.Add(3*time.Hour), out.NextAttemptAt)
	assert.Equal(t, delivery.WaitCircuitOpen, out.WaitReason)

	// A closed run has no next attempt.
	runs[1].res = delivery.Result{Status: delivery.StatusDelivered, Attempts: []delivery.Attempt{retry}}
	out = tell(runs)
	assert.Zero(t, out.NextAttemptAt)
	assert.Empty(t, out.WaitReason)
}
