package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEventsListSendsTheFilter(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/events", 200, `{"data":[{"event_id":"evt_1","type":"order.created","accepted_at":"2026-11-30T09:00:00Z",
		"deliveries":[{"id":"dlv_1","endpoint_id":"ep_1"},{"id":"dlv_2","endpoint_id":"ep_2"}]}],"next_cursor":"c2"}`)
	e, out := testEnv(false)
	var hint bytes.Buffer
	e.stderr = &hint
	err := e.run(context.Background(), "events", []string{"list", "--type", "order.*", "--endpoint", "ep_1", "--since", "1d", "--limit", "1"})
	require.NoError(t, err)
	assert.Equal(t, "endpoint_id=ep_1&limit=1&since=2026-11-29T12%3A00%3A00Z&type=order.%2A", f.only(t).Query)
	assert.Regexp(t, `(?m)^TYPE\s+ACCEPTED AT\s+AGE\s+DELIVERIES\s+EVENT$`, out.String())
	assert.Regexp(t, `(?m)^order.created\s+2026-11-30T09:00:00Z\s+3h\s+2\s+evt_1$`, out.String())
	assert.Contains(t, hint.String(), "--cursor c2")
}

func TestEventsGetShowsDeliveriesAndPayload(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/events/{id}", 200, `{"event_id":"evt_1","type":"order.created","payload":{"v":"A"},"accepted_at":"2026-11-30T09:00:00Z",
		"deliveries":[{"id":"dlv_1","endpoint_id":"ep_1","status":"delivered"},{"id":"dlv_2","endpoint_id":"ep_2","status":"not_started"}]}`)
	out, _, err := cli("events", "get", "evt_1")
	require.NoError(t, err)
	assert.Equal(t, "/v1/events/evt_1", f.only(t).Path)
	assert.Regexp(t, `Type\s+order.created`, out)
	assert.Regexp(t, `(?m)^dlv_1\s+ep_1\s+delivered$`, out)
	assert.Regexp(t, `(?m)^dlv_2\s+ep_2\s+not started$`, out)
	assert.Contains(t, out, "Payload:\n{\n  \"v\": \"A\"\n}")
}

func TestEventsGetUnknown(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/events/{id}", 404, `{"error":{"code":"not_found","message":"event not found"}}`)
	_, _, err := cli("events", "get", "evt_x")
	require.ErrorContains(t, err, "events get: event not found (HTTP 404 not_found)")
}
