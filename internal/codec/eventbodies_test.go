package codec

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"

	"github.com/hookd/hookd/internal/eventkey"
)

func jsonPayload(t *testing.T, v any) *commonpb.Payload {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: data}
}

// The codec server's last step opens a live event's sealed body (also
// inside a dead letter's "request"), marks an expunged one, hides the
// plaintext body of an expunged event recorded without a key, and leaves
// everything else as it was.
func TestEventBodies(t *testing.T) {
	key, err := eventkey.New()
	require.NoError(t, err)
	sealed, err := eventkey.Seal(key, "evt_live", `{"email":"ada@example.com"}`)
	require.NoError(t, err)
	gone, err := eventkey.Seal(key, "evt_gone", `{"email":"bob@example.com"}`)
	require.NoError(t, err)
	eb := eventBodies{keys: func(_ context.Context, id string) ([]byte, bool, error) {
		switch id {
		case "evt_live":
			return key, false, nil
		case "evt_down":
			return nil, false, errors.New("store down")
		case "evt_plain":
			return nil, false, nil
		}
		return nil, true, nil // evt_gone, evt_old: expunged
	}}
	cases := map[string]struct {
		in   any
		want string
	}{
		"live":          {map[string]any{"event_id": "evt_live", "sealed_body": sealed}, `{"event_id":"evt_live","payload":{"email":"ada@example.com"}}`},
		"expunged":      {map[string]any{"event_id": "evt_gone", "sealed_body": gone}, `{"event_id":"evt_gone","payload_expunged":true}`},
		"in a request":  {map[string]any{"reason": "failed", "request": map[string]any{"event_id": "evt_gone", "sealed_body": gone}}, `{"reason":"failed","request":{"event_id":"evt_gone","payload_expunged":true}}`},
		"keyless gone":  {map[string]any{"event_id": "evt_old", "payload": map[string]any{"email": "eve@example.com"}}, `{"event_id":"evt_old","payload_expunged":true}`},
		"keyless live":  {map[string]any{"event_id": "evt_plain", "payload": map[string]any{"n": 1}}, `{"event_id":"evt_plain","payload":{"n":1}}`},
		"store down":    {map[string]any{"event_id": "evt_down", "sealed_body": sealed}, ""},
		"no event":      {map[string]any{"status": "delivered"}, `{"status":"delivered"}`},
		"another event": {map[string]any{"event_id": "evt_live", "sealed_body": gone}, ""},
	}
	for name, c := range cases {
		in := jsonPayload(t, c.in)
		out, err := eb.Decode([]*commonpb.Payload{in})
		require.NoError(t, err, name)
		want := c.want
		if want == "" {
			want = string(in.GetData()) // shown as stored
		}
		require.JSONEq(t, want, string(out[0].GetData()), name)
	}
	bin := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("binary/plain")}, Data: []byte(`"event_id"`)}
	out, err := eb.Decode([]*commonpb.Payload{bin})
	require.NoError(t, err)
	require.Same(t, bin, out[0], "not JSON: passed through")
}
