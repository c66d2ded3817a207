package apiclient

import (
	"encoding/json"
	"testing"
)

// The bodies of create and update carry the credentials and the trace
// switch, and an update can remove the authentication with "auth": null.
func TestEndpointBodies(t *testing.T) {
	headers := map[string]string{"X-Api-Key": "k-123456789"}
	on := true
	in := EndpointInput{Headers: &headers, Auth: &EndpointAuth{Type: "bearer", Token: "t-1"}, PropagateTrace: &on}
	for name, body := range map[string]any{"create": in.create(), "update": in.patch()} {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if got["headers"].(map[string]any)["X-Api-Key"] != "k-123456789" || got["auth"].(map[string]any)["token"] != "t-1" || got["propagate_trace"] != true {
			t.Errorf("%s body %s", name, b)
		}
	}
	b, err := json.Marshal(EndpointInput{RemoveAuth: true}.patch())
	if err != nil || string(b) != `{"auth":null}` {
		t.Errorf("remove auth: %s, %v", b, err)
	}
	b, err = json.Marshal(EndpointInput{RemoveTLS: true, RemoveRateLimit: true}.patch())
	if err != nil || string(b) != `{"rate_limit":null,"tls":null}` {
		t.Errorf("remove TLS and rate limit: %s, %v", b, err)
	}
	b, err = json.Marshal(EndpointInput{RemoveAuth: true, RemoveTLS: true, RemoveRateLimit: true}.create())
	if err != nil || string(b) != `{"url":""}` {
		t.Errorf("a create removes nothing: %s, %v", b, err)
	}
	desc := "d"
	b, err = json.Marshal(EndpointInput{RemoveAuth: true, Description: &desc}.patch())
	if err != nil || string(b) != `{"auth":null,"description":"d"}` {
		t.Errorf("remove auth with a description: %s, %v", b, err)
	}
}
