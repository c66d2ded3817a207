package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient"
)

// TestClientSendsThePayloadBytesItWasGiven: an event sent through the Go
// client (what `hookd send` uses) with "<", ">" and "&" in its payload is
// the same event when curl posts it again: a duplicate, not a conflict.
func TestClientSendsThePayloadBytesItWasGiven(t *testing.T) {
	t.Parallel()
	c, err := apiclient.New(shared.APIURL, shared.APIKey)
	require.NoError(t, err)
	payload := `{"note":"<b>fish & chips</b>"}`
	first, err := c.SendEvent(context.Background(), apiclient.Event{
		EventID: "evt_html_bytes", Type: "e2e.html_bytes", Payload: json.RawMessage(payload),
	})
	require.NoError(t, err)
	require.False(t, first.Duplicate)

	var again accepted
	status := newAPI(t).do("POST", "/v1/events",
		`{"event_id":"evt_html_bytes","type":"e2e.html_bytes","payload":`+payload+`}`, &again)
	require.Equal(t, http.StatusAccepted, status, "the same bytes posted by curl")
	require.True(t, again.Duplicate)

	var ev eventRecord
	require.Equal(t, http.StatusOK, newAPI(t).do("GET", "/v1/events/evt_html_bytes", nil, &ev))
	require.JSONEq(t, payload, string(ev.Payload))
	require.NotContains(t, string(ev.Payload), `\u003c`, "stored as given, not HTML-escaped")
}
