package activities

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/delivery"
)

// A dead letter waits the dead-letter retention, cut to end with its
// event's dedup window, never less than an hour.
func TestDeadLetterWaitEndsWithTheDedupWindow(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	a := &Activities{deadLetterRetention: 96 * time.Hour, dedupWindow: 168 * time.Hour, now: func() time.Time { return now }}
	for accepted, want := range map[time.Duration]time.Duration{
		50 * time.Hour:  96 * time.Hour, // 118h left
		100 * time.Hour: 68 * time.Hour,
		167 * time.Hour: time.Hour,
		200 * time.Hour: time.Hour,
	} {
		require.Equal(t, want, a.deadLetterWait(delivery.Request{AcceptedAt: now.Add(-accepted)}), "accepted %s ago", accepted)
	}
	require.Equal(t, 96*time.Hour, a.deadLetterWait(delivery.Request{}), "a request from before the event record")
	a.dedupWindow = 0
	require.Equal(t, 96*time.Hour, a.deadLetterWait(delivery.Request{AcceptedAt: now.Add(-200 * time.Hour)}))
}
