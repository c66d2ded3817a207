package api

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/hookd/hookd/delivery"
	"github.com/hookd/hookd/store"
)

// FuzzEventValidation: any request body either fails with an API error or
// yields an event whose body is a compact, valid UTF-8 JSON object within
// the payload limit. It never panics.
func FuzzEventValidation(f *testing.F) {
	for _, seed := range []string{
		`{"type":"order.created","payload":{"a":1}}`,
		`{"event_id":"e-1","type":"a.b","payload":{"nested":{"x":[1,2,{"y":null}]}}}`,
		`{"type":"a","payload":[]}`, `{"type":"","payload":{}}`, `not json`, `{"type":"a","payload":{}} trailing`,
		"{\"type\":\"a\",\"payload\":{\"s\":\"\xff\"}}", `{"type":"a","payload":{"<":"&"}}`, `{"event_id":"` + string(make([]byte, 300)) + `"}`,
	} {
		f.Add([]byte(seed), "")
	}
	f.Add([]byte(`{"type":"a.b","payload":{}}`), "idem-1")
	s := &Server{maxPayload: 1024}
	f.Fuzz(func(t *testing.T, body []byte, idem string) {
		var in eventIn
		if err := decodeStrict(body, &in); err != nil {
			requireAPIError(t, err)
			return
		}
		ev, err := s.validateEvent(in, idem)
		if err != nil {
			requireAPIError(t, err)
			return
		}
		if !utf8.ValidString(ev.Body) || len(ev.Body) > 1024 || !json.Valid([]byte(ev.Body)) || ev.Body[0] != '{' {
			t.Fatalf("accepted a bad body %q", ev.Body)
		}
		if !eventIDPattern.MatchString(ev.ID) || !eventTypePattern.MatchString(ev.Type) {
			t.Fatalf("accepted bad id %q or type %q", ev.ID, ev.Type)
		}
	})
}

// FuzzEndpointValidation: any endpoint body either fails with an API error
// naming a field or yields an endpoint within every limit.
func FuzzEndpointValidation(f *testing.F) {
	for _, seed := range []string{
		`{"url":"https://example.com/hook","event_types":["order.*"],"retry_schedule":["1s","2m"],"timeout":"10s"}`,
		`{"url":"ftp://x"}`, `{"url":"http://user:pw@x/"}`, `{"retry_schedule":[]}`, `{"retry_schedule":["500ms"]}`,
		`{"timeout":"61s"}`, `{"event_types":["bad type"]}`, `{"metadata":{"k":"v"}}`, `{"enabled":"yes"}`,
	} {
		f.Add([]byte(seed))
	}
	s := &Server{}
	f.Fuzz(func(t *testing.T, body []byte) {
		var p endpointPatch
		if err := decodeStrict(body, &p); err != nil {
			requireAPIError(t, err)
			return
		}
		var ep store.Endpoint
		if err := s.apply(p, &ep); err != nil {
			e := requireAPIError(t, err)
			if e.Field == "" {
				t.Fatalf("error names no field: %v", e)
			}
			return
		}
		if len(ep.RetrySchedule) > 0 {
			if err := delivery.ValidateSchedule(ep.RetrySchedule); err != nil {
				t.Fatalf("accepted schedule %v: %v", ep.RetrySchedule, err)
			}
		}
		if ep.Timeout != 0 {
			if err := delivery.ValidateTimeout(ep.Timeout); err != nil {
				t.Fatalf("accepted timeout %v", ep.Timeout)
			}
		}
		if p.URL != nil && s.validateURL(ep.URL) != nil {
			t.Fatalf("accepted url %q", ep.URL)
		}
	})
}

func requireAPIError(t *testing.T, err error) *Error {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("not an API error: %T %v", err, err)
	}
	if _, known := statusOf[e.Code]; !known || statusOf[e.Code] >= 500 {
		t.Fatalf("input error answered %q", e.Code)
	}
	return e
}
