package activities

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/opevents"
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

// parkingTemporal records the dead letters parked.
type parkingTemporal struct {
	client.Client
	parked []string
}

func (p *parkingTemporal) SignalWithStartWorkflow(_ context.Context, id, _ string, _ any, _ client.StartWorkflowOptions, _ any, _ ...any) (client.WorkflowRun, error) {
	p.parked = append(p.parked, id)
	return nil, nil
}

// failingEvents refuses every event.
type failingEvents struct{ tries int }

func (f *failingEvents) Emit(context.Context, opevents.Event) error {
	f.tries++
	return errors.New("temporal unavailable")
}

// DeadLetter emits hookd.delivery.dead_lettered before it parks: an
// emission that fails fails the activity with nothing parked (Temporal
// retries both); a delivery of an operational event announces nothing.
func TestDeadLetterEmitsBeforeParking(t *testing.T) {
	tc := &parkingTemporal{}
	a := newTestActivities(newFakeEndpoints(t), tc, nil)
	failing := &failingEvents{}
	a.events = failing
	dl := delivery.DeadLetter{Request: delivery.Request{DeliveryID: "dlv_1", EventType: "order.created", EndpointID: "ep_1", Run: 1},
		Reason: delivery.StatusExhausted, Attempts: []delivery.Attempt{{Status: 503, ErrorClass: "http_5xx"}}}
	require.Error(t, a.DeadLetter(context.Background(), dl))
	require.Empty(t, tc.parked, "not parked before its event is recorded")

	ev := &emitted{}
	a.events = ev
	require.NoError(t, a.DeadLetter(context.Background(), dl))
	require.NoError(t, a.DeadLetter(context.Background(), dl), "a retry")
	require.Len(t, tc.parked, 2)
	require.Len(t, ev.events, 2)
	require.Equal(t, ev.events[0].ID, ev.events[1].ID, "the retry's event is the same event")
	require.Equal(t, opevents.DeliveryDeadLettered, ev.events[0].Type)

	quiet := dl
	quiet.Request.EventType = opevents.DeliveryDeadLettered
	require.NoError(t, a.DeadLetter(context.Background(), quiet))
	require.Len(t, ev.events, 2, "no event about an operational event's delivery")
}
