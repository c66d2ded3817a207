package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
)

// newEntry returns a dead letter of a delivery that died after two attempts.
func newEntry(name string, reason delivery.Status) delivery.DeadLetter {
	req := newRequest(name, []time.Duration{time.Second})
	return delivery.DeadLetter{
		Request: req,
		Reason:  reason,
		Attempts: []delivery.Attempt{
			{Number: 1, Start: t0, Status: 503, ErrorClass: "http_5xx", Outcome: retryable, NextDelay: time.Second, DelayReason: "schedule", NextAttempt: t0.Add(time.Second)},
			{Number: 2, Start: t0.Add(time.Second), Status: 503, ErrorClass: "http_5xx", Outcome: retryable},
		},
		DeadAt: t0.Add(time.Second),
	}
}

// redriven is req as a redrive by rd starts it again.
func redriven(req delivery.Request, rd delivery.Redrive) delivery.Request {
	req.Redrive = &rd
	return req
}

// runDeadLetter runs a dead-letter workflow whose entry arrives with its
// start (signal-with-start) and returns how it ended.
func runDeadLetter(t *testing.T, env *testEnv, entry delivery.DeadLetter, retention time.Duration) delivery.DeadLetterOutcome {
	t.Helper()
	env.signalAt(0, delivery.SignalDeadLetter, entry)
	env.ExecuteWorkflow(delivery.WorkflowDeadLetter, delivery.DeadLetterParams{Retention: retention})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var out delivery.DeadLetterOutcome
	require.NoError(t, env.GetWorkflowResult(&out))
	calls, deadLetters, _ := env.fakes.snapshot()
	assert.Empty(t, calls, "a dead letter makes no attempts")
	assert.Empty(t, deadLetters)
	return out
}

func TestDeadLetterRedrive(t *testing.T) {
	tests := []struct {
		name   string
		signal any
		want   delivery.Redrive // At is set below
	}{
		{"who and why", delivery.RedriveSignal{By: "alice@example.com", Reason: "endpoint repaired"}, delivery.Redrive{By: "alice@example.com", Reason: "endpoint repaired"}},
		{"why only", delivery.RedriveSignal{Reason: "endpoint repaired"}, delivery.Redrive{By: "temporal signal", Reason: "endpoint repaired"}},
		{"no payload, as the temporal CLI sends it", noPayload{}, delivery.Redrive{By: "temporal signal"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			entry := newEntry("redrive", delivery.StatusExhausted)
			var queried delivery.DeadLetter
			env.queryAt(t, time.Hour, delivery.QueryEntry, &queried)
			env.signalAt(2*time.Hour, delivery.SignalRedrive, tc.signal)

			out := runDeadLetter(t, env, entry, 72*time.Hour)

			assert.Equal(t, entry, queried, "the entry query returns the entry")
			want := tc.want
			want.At = t0.Add(2 * time.Hour)
			_, _, redrives := env.fakes.snapshot()
			assert.Equal(t, []delivery.Request{redriven(entry.Request, want)}, redrives)
			assert.Equal(t, delivery.DeadLetterOutcome{Outcome: "redriven", Redrive: &want, At: want.At}, normalize(out))
		})
	}
}

func TestDeadLetterExpires(t *testing.T) {
	tests := []struct {
		name            string
		retention, want time.Duration
	}{
		{"configured retention", 48 * time.Hour, 48 * time.Hour},
		{"default retention of 30 days", 0, 30 * 24 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t)
			entry := newEntry("expire", delivery.StatusFailed)
			var queried delivery.DeadLetter
			env.queryAt(t, tc.want-time.Second, delivery.QueryEntry, &queried)

			out := runDeadLetter(t, env, entry, tc.retention)

			assert.Equal(t, entry, queried, "the entry is kept until the retention ends")
			assert.Equal(t, delivery.DeadLetterOutcome{Outcome: "expired", At: t0.Add(tc.want)}, normalize(out))
			_, _, redrives := env.fakes.snapshot()
			assert.Empty(t, redrives, "an expired dead letter is not redriven")
		})
	}
}

func TestDeadLetterLaterEntryReplacesEntry(t *testing.T) {
	env := newTestEnv(t)
	first := newEntry("replace", delivery.StatusExhausted)
	second := first
	second.DeadAt = t0.Add(time.Hour)
	env.signalAt(time.Hour, delivery.SignalDeadLetter, second)
	env.signalAt(2*time.Hour, delivery.SignalRedrive, delivery.RedriveSignal{By: "alice"})

	out := runDeadLetter(t, env, first, 72*time.Hour)

	byAlice := delivery.Redrive{By: "alice", At: t0.Add(2 * time.Hour)}
	assert.Equal(t, delivery.DeadLetterOutcome{Outcome: "redriven", Redrive: &byAlice, At: byAlice.At}, normalize(out))
	var queried delivery.DeadLetter
	v, err := env.QueryWorkflow(delivery.QueryEntry)
	require.NoError(t, err)
	require.NoError(t, v.Get(&queried))
	assert.Equal(t, second, queried)
	_, _, redrives := env.fakes.snapshot()
	assert.Equal(t, []delivery.Request{redriven(second.Request, byAlice)}, redrives)
}

// TestDeadLetterKeepsWaitingWhenTheRedrivenRunDiesAgain covers a redriven
// run that dies again while the dead letter is still starting it: its new
// entry arrives before the dead letter closes, so the dead letter keeps
// waiting for a second redrive instead of losing the entry.
func TestDeadLetterKeepsWaitingWhenTheRedrivenRunDiesAgain(t *testing.T) {
	env := newTestEnv(t)
	// Starting the run takes a minute; the new entry arrives meanwhile.
	env.OnActivity(delivery.ActivityRedrive, mock.Anything, mock.Anything).After(time.Minute).Return(env.fakes.StartRedrive)
	first := newEntry("again", delivery.StatusExhausted)
	second := newEntry("again", delivery.StatusFailed)
	second.DeadAt = t0.Add(time.Hour + 30*time.Second)
	env.signalAt(time.Hour, delivery.SignalRedrive, delivery.RedriveSignal{By: "alice"})
	env.signalAt(time.Hour+30*time.Second, delivery.SignalDeadLetter, second)
	var waiting delivery.DeadLetter
	env.queryAt(t, 2*time.Hour, delivery.QueryEntry, &waiting)
	env.RegisterDelayedCallback(func() {
		assert.False(t, env.IsWorkflowCompleted(), "still waiting after the first redrive")
	}, 2*time.Hour)
	env.signalAt(3*time.Hour, delivery.SignalRedrive, delivery.RedriveSignal{By: "bob"})

	out := runDeadLetter(t, env, first, 72*time.Hour)

	assert.Equal(t, second, waiting, "the entry query returns the new entry")
	byAlice := delivery.Redrive{By: "alice", At: t0.Add(time.Hour)}
	byBob := delivery.Redrive{By: "bob", At: t0.Add(3 * time.Hour)}
	_, _, redrives := env.fakes.snapshot()
	assert.Equal(t, []delivery.Request{redriven(first.Request, byAlice), redriven(second.Request, byBob)}, redrives)
	assert.Equal(t, delivery.DeadLetterOutcome{Outcome: "redriven", Redrive: &byBob, At: byBob.At}, normalize(out))
}

// normalize puts an outcome's times in UTC, as they are in the fakes.
func normalize(out delivery.DeadLetterOutcome) delivery.DeadLetterOutcome {
	out.At = out.At.UTC()
	if out.Redrive != nil {
		rd := *out.Redrive
		rd.At = rd.At.UTC()
		out.Redrive = &rd
	}
	return out
}
