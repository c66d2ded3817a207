package codec

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	commonpb "go.temporal.io/api/common/v1"

	"github.com/hookd/hookd/internal/eventkey"
)

// EventKeys finds an event's data key for the codec server (the endpoint
// store): the key (nil for an event recorded without one), or expunged
// when the event was expunged or its record is gone.
type EventKeys func(ctx context.Context, eventID string) (key []byte, expunged bool, err error)

// eventKeysTimeout bounds one key lookup of a decode.
const eventKeysTimeout = 2 * time.Second

// eventBodies is the codec server's last decoding step: a delivery
// request (a workflow's input, or one inside a dead letter or a retry's
// input, under "request") whose body is sealed with its event's key shows
// the payload opened with the key; the body of an expunged event shows
// as "payload_expunged": true instead (a plaintext one of an event
// recorded without a key too), so the Web UI shows an expunged body as
// such, not as an error. Encoding passes payloads through.
type eventBodies struct{ keys EventKeys }

func (e eventBodies) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	return payloads, nil
}

func (e eventBodies) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		out[i] = e.reveal(p)
	}
	return out, nil
}

// reveal returns p with its sealed body shown, or p unchanged when it
// holds none or is not JSON.
func (e eventBodies) reveal(p *commonpb.Payload) *commonpb.Payload {
	if string(p.GetMetadata()["encoding"]) != "json/plain" || !bytes.Contains(p.GetData(), []byte(`"event_id"`)) {
		return p
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(p.GetData(), &obj) != nil {
		return p
	}
	changed := e.open(obj)
	if inner, ok := obj["request"]; ok {
		var req map[string]json.RawMessage
		if json.Unmarshal(inner, &req) == nil && e.open(req) {
			obj["request"], _ = json.Marshal(req)
			changed = true
		}
	}
	if !changed {
		return p
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return p
	}
	return &commonpb.Payload{Metadata: p.GetMetadata(), Data: data}
}

// open replaces a request's sealed body with its payload, or its body
// with payload_expunged once its event is expunged, and reports whether
// it changed it.
func (e eventBodies) open(req map[string]json.RawMessage) bool {
	var (
		sealed  []byte
		eventID string
	)
	_, plain := req["payload"]
	if _, ok := req["body"]; ok {
		plain = true
	}
	if json.Unmarshal(req["event_id"], &eventID) != nil || eventID == "" {
		return false
	}
	if raw, ok := req["sealed_body"]; ok && json.Unmarshal(raw, &sealed) != nil {
		return false
	}
	if sealed == nil && !plain {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), eventKeysTimeout)
	defer cancel()
	key, expunged, err := e.keys(ctx, eventID)
	switch {
	case err != nil, !expunged && sealed == nil, !expunged && key == nil:
		return false // shown as stored: nothing to open, or the store could not say
	case expunged:
		for _, k := range []string{"sealed_body", "payload", "body"} {
			delete(req, k)
		}
		req["payload_expunged"] = json.RawMessage("true")
		return true
	}
	body, err := eventkey.Open(key, eventID, sealed)
	if err != nil {
		return false
	}
	delete(req, "sealed_body")
	if json.Valid([]byte(body)) {
		req["payload"] = json.RawMessage(body)
	} else {
		req["body"], _ = json.Marshal(body)
	}
	return true
}
