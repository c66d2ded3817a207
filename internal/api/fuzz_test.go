package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/signing"
)

// fuzzAPI is a real API server over a real SQLite endpoint store; Temporal
// is the fake that records starts. The fuzz targets post through the
// handler, so they check what the validators alone cannot: the status, the
// error body, what was stored and what was started.
type fuzzAPI struct {
	srv      *Server
	store    store.Store
	temporal *fakeTemporal
	catchAll string // an endpoint subscribed to every event type
}

func newFuzzAPI(f *testing.F) *fuzzAPI {
	f.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(f.TempDir(), "endpoints.db"), bytes.Repeat([]byte{7}, 32))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = st.Close() })
	tc := &fakeTemporal{}
	srv, err := New(Config{Temporal: tc, Store: st, APIKeys: []string{"k"}, Namespace: "default", MaxPayload: 1024,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	secret, err := signing.NewSecret()
	if err != nil {
		f.Fatal(err)
	}
	now := time.Now().UTC()
	ep := &store.Endpoint{ID: "ep_fuzzcatchall", URL: "https://example.com/all", Enabled: true, CreatedAt: now, UpdatedAt: now}
	if err := st.CreateEndpoint(context.Background(), ep, secret); err != nil {
		f.Fatal(err)
	}
	return &fuzzAPI{srv: srv, store: st, temporal: tc, catchAll: ep.ID}
}

// call sends one request through the handler.
func (a *fuzzAPI) call(method, path, idem string, body []byte) (int, []byte) {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer k")
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	rec := httptest.NewRecorder()
	a.srv.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// takeStarts returns and forgets the delivery requests started so far.
func (a *fuzzAPI) takeStarts() []delivery.Request {
	a.temporal.mu.Lock()
	defer a.temporal.mu.Unlock()
	reqs := a.temporal.reqs
	a.temporal.reqs, a.temporal.starts = nil, nil
	return reqs
}

// requireRefusal checks a refusal: a 4xx whose JSON error body has a known
// code and, for a 400, names the field at fault.
func requireRefusal(t *testing.T, code int, raw []byte) {
	t.Helper()
	var body struct{ Error *Error }
	if err := json.Unmarshal(raw, &body); err != nil || body.Error == nil {
		t.Fatalf("status %d with body %q, not an API error", code, raw)
	}
	e := body.Error
	if code < 400 || code >= 500 || statusOf[e.Code] != code {
		t.Fatalf("input answered %d %q: %s", code, e.Code, e.Message)
	}
	if code == http.StatusBadRequest && e.Field == "" {
		t.Fatalf("400 names no field: %s", e.Message)
	}
}

// FuzzEventValidation: any body (and Idempotency-Key) posted to
// /v1/events is refused with a 4xx naming the field, or accepted with 202,
// and then exactly one delivery was started, to the catch-all endpoint,
// carrying the payload compacted but equal as JSON, the event's type and
// the ID the caller chose. Never a 5xx.
func FuzzEventValidation(f *testing.F) {
	for _, seed := range []string{
		`{"type":"order.created","payload":{"a":1}}`,
		`{"event_id":"e-1","type":"a.b","payload":{"nested":{"x":[1,2,{"y":null}]}}}`,
		`{"type":"a","payload":[]}`, `{"type":"","payload":{}}`, `not json`, `{"type":"a","payload":{}} trailing`,
		"{\"type\":\"a\",\"payload\":{\"s\":\"\xff\"}}", `{"type":"a","payload":{"<":"&"}}`, `{"event_id":"` + string(make([]byte, 300)) + `"}`,
		`{"type":"a.b","payload":{ "spaced" : [ 1 , 2 ] ,"n":1e400}}`, `{"type":"a.b","payload":{"x":"` + string(bytes.Repeat([]byte("y"), 1100)) + `"}}`,
	} {
		f.Add([]byte(seed), "")
	}
	f.Add([]byte(`{"type":"a.b","payload":{}}`), "idem-1")
	f.Add([]byte(`{"event_id":"other","type":"a.b","payload":{}}`), "idem-1")
	a := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, body []byte, idem string) {
		code, raw := a.call(http.MethodPost, "/v1/events", idem, body)
		started := a.takeStarts()
		if code != http.StatusAccepted {
			requireRefusal(t, code, raw)
			if len(started) > 0 {
				t.Fatalf("refused with %d but started %d deliveries", code, len(started))
			}
			return
		}
		var in wire.EventCreate
		if err := json.Unmarshal(body, &in); err != nil {
			t.Fatalf("accepted a body encoding/json refuses: %v", err)
		}
		var res wire.EventAccepted
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("202 body %q: %v", raw, err)
		}
		switch {
		case in.EventID != nil && res.EventID != *in.EventID:
			t.Fatalf("event_id %q answered as %q", *in.EventID, res.EventID)
		case in.EventID == nil && idem != "" && string(res.EventID) != idem:
			t.Fatalf("Idempotency-Key %q answered as %q", idem, res.EventID)
		case res.EventID == "":
			t.Fatal("no event ID")
		}
		if len(started) != 1 || len(res.Deliveries) != 1 {
			t.Fatalf("answered %d deliveries, started %d; want the catch-all's one", len(res.Deliveries), len(started))
		}
		req := started[0]
		if req.EndpointID != a.catchAll || req.DeliveryID != string(res.Deliveries[0].ID) || req.DeliveryID != delivery.ID(string(res.EventID), a.catchAll) {
			t.Fatalf("started %s to %s, answered %v", req.DeliveryID, req.EndpointID, res.Deliveries)
		}
		if req.EventID != string(res.EventID) || req.EventType != string(in.Type) {
			t.Fatalf("started event %q of type %q for %q of type %q", req.EventID, req.EventType, res.EventID, in.Type)
		}
		if req.Body != "" || req.SealedBody == nil {
			t.Fatalf("started the body %q unsealed", req.Body)
		}
		opened, _ := a.srv.bodyOf(context.Background(), req)
		var compact bytes.Buffer
		if err := json.Compact(&compact, in.Payload); err != nil || compact.String() != opened {
			t.Fatalf("payload %q started as %q", in.Payload, opened)
		}
		if !utf8.ValidString(opened) || len(opened) > 1024 || opened[0] != '{' {
			t.Fatalf("started a bad body %q", opened)
		}
	})
}

// FuzzEndpointValidation: any body posted to /v1/endpoints is refused with
// a 4xx naming the field, or created, and then the stored endpoint is
// exactly the accepted input (defaults where a field was left out) and
// reading it back answers what create answered. Never a 5xx.
func FuzzEndpointValidation(f *testing.F) {
	for _, seed := range []string{
		`{"url":"https://example.com/hook","event_types":["order.*"],"retry_schedule":["1s","2m"],"timeout":"10s"}`,
		`{"url":"ftp://x"}`, `{"url":"http://user:pw@x/"}`, `{"retry_schedule":[]}`, `{"retry_schedule":["500ms"]}`,
		`{"timeout":"61s"}`, `{"event_types":["bad type"]}`, `{"metadata":{"k":"v"}}`, `{"enabled":"yes"}`,
		`{"url":"http://127.0.0.1:9/x","description":"d","enabled":false,"metadata":{"a":"b"},"event_types":[],"retry_schedule":["90s","24h"]}`,
		`{"url":"https://example.com/","description":"\u00e9\ud800"}`, `{"":""}`,
		`{"url":"https://example.com/","signing":{"scheme":"hmac-sha256","header":"X-Sig","prefix":"sha256=","content":"timestamp.body"}}`,
		`{"url":"https://example.com/","signing":{"scheme":"hmac-sha256","header":"X-Sig"},"headers":{"x-sig":"v"}}`,
		`{"signing":{"scheme":"standard-webhooks","encoding":"hex"}}`, `{"signing":null}`,
	} {
		f.Add([]byte(seed))
	}
	a := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		code, raw := a.call(http.MethodPost, "/v1/endpoints", "", body)
		if code != http.StatusCreated {
			requireRefusal(t, code, raw)
			return
		}
		var created EndpointView
		if err := json.Unmarshal(raw, &created); err != nil || created.Secret == "" {
			t.Fatalf("201 body %q: %v", raw, err)
		}
		var in wire.EndpointPatch
		if err := json.Unmarshal(body, &in); err != nil {
			t.Fatalf("accepted a body encoding/json refuses: %v", err)
		}
		stored, err := a.store.GetEndpoint(context.Background(), created.ID)
		if err != nil {
			t.Fatalf("created endpoint %s not stored: %v", created.ID, err)
		}
		requireStoredAsPosted(t, in, stored)

		code, raw = a.call(http.MethodGet, "/v1/endpoints/"+created.ID, "", nil)
		var got EndpointView
		if code != http.StatusOK || json.Unmarshal(raw, &got) != nil {
			t.Fatalf("read back: %d %q", code, raw)
		}
		created.Secret = ""
		if !reflect.DeepEqual(normalized(created), normalized(got)) {
			t.Fatalf("created %+v, read back %+v", created, got)
		}
		if code, _ := a.call(http.MethodDelete, "/v1/endpoints/"+created.ID, "", nil); code != http.StatusNoContent {
			t.Fatalf("delete answered %d", code)
		}
	})
}

// requireStoredAsPosted compares the stored endpoint with the posted
// fields, decoded here independently of the API's validators.
func requireStoredAsPosted(t *testing.T, in wire.EndpointPatch, ep *store.Endpoint) {
	t.Helper()
	want := store.Endpoint{URL: *in.URL, Enabled: true}
	if in.Description != nil {
		want.Description = *in.Description
	}
	if in.EventTypes != nil {
		want.EventTypes = *in.EventTypes
	}
	if in.Enabled != nil {
		want.Enabled = *in.Enabled
	}
	if in.RetrySchedule != nil {
		for _, s := range *in.RetrySchedule {
			d, err := time.ParseDuration(s)
			if err != nil {
				t.Fatalf("accepted retry interval %q: %v", s, err)
			}
			want.RetrySchedule = append(want.RetrySchedule, d)
		}
	}
	if in.Timeout != nil {
		d, err := time.ParseDuration(*in.Timeout)
		if err != nil {
			t.Fatalf("accepted timeout %q: %v", *in.Timeout, err)
		}
		want.Timeout = d
	}
	if in.Metadata != nil {
		want.Metadata = *in.Metadata
	}
	got := store.Endpoint{URL: ep.URL, Description: ep.Description, EventTypes: ep.EventTypes, Enabled: ep.Enabled,
		RetrySchedule: ep.RetrySchedule, Timeout: ep.Timeout, Metadata: ep.Metadata}
	if !reflect.DeepEqual(normalizedEndpoint(want), normalizedEndpoint(got)) {
		t.Fatalf("posted %+v, stored %+v", want, got)
	}
}

// normalizedEndpoint treats nil and empty collections alike.
func normalizedEndpoint(ep store.Endpoint) store.Endpoint {
	if len(ep.EventTypes) == 0 {
		ep.EventTypes = nil
	}
	if len(ep.RetrySchedule) == 0 {
		ep.RetrySchedule = nil
	}
	if len(ep.Metadata) == 0 {
		ep.Metadata = nil
	}
	return ep
}

// normalized drops what a read may legitimately answer differently from
// create: the timestamps' monotonic and location details.
func normalized(e EndpointView) EndpointView {
	e.CreatedAt, e.UpdatedAt = e.CreatedAt.UTC().Round(0), e.UpdatedAt.UTC().Round(0)
	return e
}
