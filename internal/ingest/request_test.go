package ingest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/store"
)

// A delivery carries the endpoint's schedule and timeout, or the defaults
// when it sets none, and an ID derived from the event and endpoint only.
func TestNewRequest(t *testing.T) {
	ev := ingest.Event{ID: "evt_1", Type: "order.created", Body: `{"n":1}`}
	own := &store.Endpoint{ID: "ep_own", RetrySchedule: []time.Duration{time.Second, time.Minute}, Timeout: 3 * time.Second}
	req := ingest.NewRequest(ev, own)
	assert.Equal(t, delivery.Request{
		DeliveryID: delivery.ID("evt_1", "ep_own"), EventID: "evt_1", EventType: "order.created", EndpointID: "ep_own",
		Body: `{"n":1}`, Schedule: own.RetrySchedule, Timeout: 3 * time.Second, Run: 1,
	}, req)
	assert.Equal(t, req.DeliveryID, ingest.NewRequest(ingest.Event{ID: "evt_1", Type: "other", Body: "{}"}, own).DeliveryID,
		"the ID depends on the event ID and endpoint only")
	assert.NotEqual(t, req.DeliveryID, ingest.NewRequest(ev, &store.Endpoint{ID: "ep_other"}).DeliveryID)

	bare := &store.Endpoint{ID: "ep_bare"}
	req = ingest.NewRequest(ev, bare)
	assert.Equal(t, delivery.DefaultSchedule(), req.Schedule)
	assert.Equal(t, delivery.DefaultTimeout, req.Timeout)
	// Each request has its own copy of the default: changing one (as a
	// test might) changes no other delivery's schedule.
	req.Schedule[0] = time.Hour
	assert.Equal(t, delivery.DefaultSchedule(), ingest.NewRequest(ev, bare).Schedule)
}
