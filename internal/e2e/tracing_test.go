package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookd/hookd/internal/app"
)

// TestTracingIngestToReceiver runs its own hookd dev with a tracer
// provider on an in-memory recorder, given as production gives the one
// the OTEL_* environment describes (DevConfig.TracerProvider). An event
// posted with a traceparent fans out to two endpoints; the first attempt
// to one fails with a 503 and its retry succeeds. One trace, the
// caller's, holds the ingest, the claim, the starts, the workflow and
// activity spans and both HTTP attempts, in order; no attribute holds the
// payload, a secret, a token or a URL's path or query; and only the
// endpoint that asked for it receives a traceparent: the attempt's span.
func TestTracingIngestToReceiver(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	dev := ownDev(t, func(c *app.DevConfig) { c.TracerProvider = tp })
	api := &apiClient{t: t, dev: dev}

	const (
		pathSecret = "p4th-s3cret"
		queryToken = "t0ken-in-query"
		payloadBit = "payl0ad-marker"
	)
	tenant := "tn_trace_" + uniq()
	api.putTenant(tenant)
	traced := newReceiver(t, func(n int, w http.ResponseWriter) {
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	plain := newReceiver(t, nil)
	epTraced := api.createEndpoint(map[string]any{
		"url": traced.URL + "/hooks/" + pathSecret + "?token=" + queryToken, "event_types": []string{"trace.checked"},
		"retry_schedule": []string{"1s"}, "propagate_trace": true, "tenant_id": tenant,
	})
	epPlain := api.createEndpoint(map[string]any{
		"url": plain.URL + "/hooks/" + pathSecret, "event_types": []string{"trace.checked"}, "tenant_id": tenant,
	})
	var view endpoint
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+epTraced.ID, nil, &view))
	require.True(t, view.PropagateTrace)
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+epPlain.ID, nil, &view))
	require.False(t, view.PropagateTrace, "off by default")
	api.requireField("PATCH", "/v1/endpoints/"+epPlain.ID, map[string]any{"propagate_trace": "yes"}, "propagate_trace")

	// The caller's trace: hookd's spans join it.
	callerTrace, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	callerSpan, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	eventID := "evt_trace_" + uniq()
	body := fmt.Sprintf(`{"event_id":%q,"type":"trace.checked","tenant_id":%q,"payload":{"note":%q}}`, eventID, tenant, payloadBit)
	req, err := http.NewRequest("POST", dev.APIURL+"/v1/events", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+dev.APIKey)
	req.Header.Set("traceparent", "00-"+callerTrace.String()+"-"+callerSpan.String()+"-01")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%s", raw)

	dlvTraced, dlvPlain := deliveryIDOf(t, api, eventID, epTraced.ID), deliveryIDOf(t, api, eventID, epPlain.ID)
	require.EqualValues(t, "delivered", api.waitDelivery(dlvTraced, 30*time.Second).Status)
	require.EqualValues(t, "delivered", api.waitDelivery(dlvPlain, 30*time.Second).Status)

	// The activity and workflow spans end as the runs complete, just after.
	var spans []sdktrace.ReadOnlySpan
	require.Eventually(t, func() bool {
		spans = rec.Ended()
		return count(spans, "RunActivity:Retry", callerTrace) == 1 && count(spans, "POST", callerTrace) == 3 &&
			count(spans, "RunActivity:FirstAttempt", callerTrace) == 2 && count(spans, "RunWorkflow:Delivery", callerTrace) >= 2
	}, 10*time.Second, 50*time.Millisecond, "spans: %v", names(rec.Ended()))

	inTrace := func(name string, match func(sdktrace.ReadOnlySpan) bool) []sdktrace.ReadOnlySpan {
		var out []sdktrace.ReadOnlySpan
		for _, s := range spans {
			if s.Name() == name && s.SpanContext().TraceID() == callerTrace && (match == nil || match(s)) {
				out = append(out, s)
			}
		}
		slices.SortFunc(out, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
		return out
	}
	one := func(name string, match func(sdktrace.ReadOnlySpan) bool) sdktrace.ReadOnlySpan {
		t.Helper()
		got := inTrace(name, match)
		require.Len(t, got, 1, "span %s in the caller's trace; all: %v", name, names(spans))
		return got[0]
	}
	childOf := func(parents ...sdktrace.ReadOnlySpan) func(sdktrace.ReadOnlySpan) bool {
		return func(s sdktrace.ReadOnlySpan) bool {
			return slices.ContainsFunc(parents, func(p sdktrace.ReadOnlySpan) bool { return s.Parent().SpanID() == p.SpanContext().SpanID() })
		}
	}
	of := func(workflowID string) func(sdktrace.ReadOnlySpan) bool {
		return func(s sdktrace.ReadOnlySpan) bool { return attr(s, "temporalWorkflowID") == workflowID }
	}

	ingest := one("POST /v1/events", nil)
	require.Equal(t, callerSpan, ingest.Parent().SpanID(), "the ingest span continues the caller's traceparent")
	require.True(t, ingest.Parent().IsRemote())
	require.Equal(t, trace.SpanKindServer, ingest.SpanKind())
	require.Equal(t, eventID, attr(ingest, "hookd.event.id"))
	require.Equal(t, "trace.checked", attr(ingest, "hookd.event.type"))
	require.Equal(t, tenant, attr(ingest, "hookd.tenant.id"))
	require.Equal(t, "2", attr(ingest, "hookd.deliveries"))
	require.Equal(t, "202", attr(ingest, "http.response.status_code"))
	claim := one("hookd.event.claim", childOf(ingest))
	require.Equal(t, "true", attr(claim, "hookd.event.claimed"))
	require.Len(t, inTrace("StartWorkflow:Delivery", childOf(ingest)), 2, "one start per delivery")
	start := one("StartWorkflow:Delivery", of(dlvTraced))
	require.Equal(t, ingest.SpanContext().SpanID(), start.Parent().SpanID())
	// A workflow span per execution of the run's code: a replay on a
	// later task (the run left the worker's cache) is one more.
	runs := inTrace("RunWorkflow:Delivery", of(dlvTraced))
	require.NotEmpty(t, runs)
	for _, run := range runs {
		require.Equal(t, start.SpanContext().SpanID(), run.Parent().SpanID())
	}
	run := runs[0]
	firstStart := one("StartActivity:FirstAttempt", childOf(runs...))
	first := one("RunActivity:FirstAttempt", childOf(firstStart))
	retryStart := one("StartActivity:Retry", childOf(runs...))
	retry := one("RunActivity:Retry", childOf(retryStart))
	http1 := one("POST", childOf(first))
	http2 := one("POST", childOf(retry))
	for _, s := range []sdktrace.ReadOnlySpan{http1, http2} {
		require.Equal(t, trace.SpanKindClient, s.SpanKind())
		require.Equal(t, dlvTraced, attr(s, "hookd.delivery.id"))
		require.Equal(t, "http", attr(s, "url.scheme"))
		require.Equal(t, "127.0.0.1", attr(s, "server.address"))
		require.NotEmpty(t, attr(s, "hookd.attempt.duration_ms"))
	}
	require.Equal(t, "503", attr(http1, "http.response.status_code"))
	require.Equal(t, "retryable", attr(http1, "hookd.outcome"))
	require.Equal(t, "1", attr(http1, "hookd.attempt"))
	require.Equal(t, "200", attr(http2, "http.response.status_code"))
	require.Equal(t, "success", attr(http2, "hookd.outcome"))
	require.Equal(t, "2", attr(http2, "hookd.attempt"))
	ordered := []sdktrace.ReadOnlySpan{ingest, claim, start, run, first, http1, retry, http2}
	for i := 1; i < len(ordered); i++ {
		require.False(t, ordered[i].StartTime().Before(ordered[i-1].StartTime()),
			"%s starts before %s", ordered[i].Name(), ordered[i-1].Name())
	}
	require.Len(t, inTrace("POST", func(s sdktrace.ReadOnlySpan) bool { return attr(s, "hookd.delivery.id") == dlvPlain }), 1)

	// What the receivers got: the traced endpoint each attempt's own span,
	// the other nothing.
	hits := traced.Hits()
	require.Len(t, hits, 2)
	for i, s := range []sdktrace.ReadOnlySpan{http1, http2} {
		require.Equal(t, "00-"+callerTrace.String()+"-"+s.SpanContext().SpanID().String()+"-01", hits[i].Header.Get("traceparent"))
	}
	for _, h := range plain.Hits() {
		require.Empty(t, h.Header.Get("traceparent"), "an endpoint without propagate_trace gets no trace context")
		require.Empty(t, h.Header.Get("tracestate"))
	}

	// Nothing secret in any span of any trace.
	forbidden := []string{pathSecret, queryToken, payloadBit, "/hooks/", epTraced.Secret, epPlain.Secret, dev.APIKey,
		strings.TrimPrefix(epTraced.Secret, "whsec_")}
	for _, s := range spans {
		texts := []string{s.Name(), s.Status().Description}
		for _, kv := range s.Attributes() {
			texts = append(texts, string(kv.Key)+"="+kv.Value.Emit())
		}
		for _, ev := range s.Events() {
			texts = append(texts, ev.Name)
			for _, kv := range ev.Attributes {
				texts = append(texts, string(kv.Key)+"="+kv.Value.Emit())
			}
		}
		for _, text := range texts {
			for _, f := range forbidden {
				require.NotContains(t, text, f, "span %s", s.Name())
			}
		}
	}
}

// TestTracingOffSendsNoTraceContext: the shared hookd runs without a
// tracer provider, as hookd does with no OTEL_* exporter set; an endpoint
// that asks for trace context gets none, even from an event posted with
// a traceparent.
func TestTracingOffSendsNoTraceContext(t *testing.T) {
	api := newAPI(t)
	rc := newReceiver(t, nil)
	typ := "trace.off." + uniq()
	api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{typ}, "propagate_trace": true})
	req, err := http.NewRequest("POST", shared.APIURL+"/v1/events", strings.NewReader(fmt.Sprintf(`{"type":%q,"payload":{"n":1}}`, typ)))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+shared.APIKey)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var a accepted
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&a))
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Len(t, a.Deliveries, 1)
	require.EqualValues(t, "delivered", api.waitDelivery(a.Deliveries[0].ID, 10*time.Second).Status)
	hits := rc.Hits()
	require.Len(t, hits, 1)
	require.Empty(t, hits[0].Header.Get("traceparent"))
	require.Empty(t, hits[0].Header.Get("tracestate"))
}

// deliveryIDOf is the delivery of the event to the endpoint, as the
// event's record lists it.
func deliveryIDOf(t *testing.T, api *apiClient, eventID, endpointID string) string {
	t.Helper()
	var rec eventRecord
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/events/"+eventID, nil, &rec))
	for _, d := range rec.Deliveries {
		if d.EndpointID == endpointID {
			return d.ID
		}
	}
	t.Fatalf("event %s has no delivery to %s", eventID, endpointID)
	return ""
}

func attr(s sdktrace.ReadOnlySpan, key string) string {
	for _, kv := range s.Attributes() {
		if kv.Key == attribute.Key(key) {
			return kv.Value.Emit()
		}
	}
	return ""
}

func count(spans []sdktrace.ReadOnlySpan, name string, tid trace.TraceID) int {
	n := 0
	for _, s := range spans {
		if s.Name() == name && s.SpanContext().TraceID() == tid {
			n++
		}
	}
	return n
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name()
	}
	return out
}

// TestTracingRedriveLinksToTheDelivery: a delivery posted in the caller's
// trace fails for good (400) and waits as a dead letter; its redrive,
// requested without any trace context, is a hookd.redrive span in a trace
// of its own that links to the failed delivery's trace, and the redriven
// run's attempt is in the delivery's trace.
func TestTracingRedriveLinksToTheDelivery(t *testing.T) {
	dev, api, rec := tracedDev(t)

	rcv := newReceiver(t, func(n int, w http.ResponseWriter) {
		if n == 1 {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	ep := api.createEndpoint(map[string]any{"url": rcv.URL, "event_types": []string{"trace.redriven"}})
	callerTrace, _ := trace.TraceIDFromHex("5cf92f3577b34da6a3ce929d0e0e4737")
	eventID := "evt_trace_" + uniq()
	postTraced(t, dev, eventID, "trace.redriven", callerTrace)

	id := deliveryIDOf(t, api, eventID, ep.ID)
	api.waitDeadLetter(id)
	require.Equal(t, http.StatusAccepted, api.do("POST", "/v1/dead-letters/"+id+"/redrive", map[string]string{"reason": "fixed"}, nil))
	require.Eventually(t, func() bool {
		var d deliveryState
		return api.do("GET", "/v1/deliveries/"+id, nil, &d) == http.StatusOK && d.Status == "delivered"
	}, 30*time.Second, 100*time.Millisecond)

	var redrive sdktrace.ReadOnlySpan
	require.Eventually(t, func() bool {
		for _, s := range rec.Ended() {
			if s.Name() == "hookd.redrive" && attr(s, "hookd.delivery.id") == id {
				redrive = s
				return true
			}
		}
		return false
	}, 10*time.Second, 50*time.Millisecond)
	require.NotEqual(t, callerTrace, redrive.SpanContext().TraceID(), "the redrive is a trace of its own")
	require.Len(t, redrive.Links(), 1)
	require.Equal(t, callerTrace, redrive.Links()[0].SpanContext.TraceID(), "linked to the failed delivery's trace")

	// The redriven run is started by the dead letter's workflow, which
	// lives in the delivery's trace: its attempt is in that trace too, so
	// one trace holds the delivery's every run.
	var redriven trace.TraceID
	require.Eventually(t, func() bool {
		for _, s := range rec.Ended() {
			if s.Name() == "POST" && attr(s, "hookd.delivery.id") == id && attr(s, "http.response.status_code") == "200" {
				redriven = s.SpanContext().TraceID()
				return true
			}
		}
		return false
	}, 10*time.Second, 50*time.Millisecond, "spans: %v", names(rec.Ended()))
	require.Equal(t, callerTrace, redriven)
}

// TestTracingExpungeLinksToTheDeliveries: an event posted in the caller's
// trace waits to retry; its expunge, requested without trace context, is
// a hookd.event.expunge span of its own linked to the delivery's trace.
func TestTracingExpungeLinksToTheDeliveries(t *testing.T) {
	dev, api, rec := tracedDev(t)

	rcv := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) })
	ep := api.createEndpoint(map[string]any{"url": rcv.URL, "event_types": []string{"trace.expunged"}, "retry_schedule": []string{"1h"}})
	callerTrace, _ := trace.TraceIDFromHex("6df92f3577b34da6a3ce929d0e0e4738")
	eventID := "evt_trace_" + uniq()
	postTraced(t, dev, eventID, "trace.expunged", callerTrace)
	deliveryIDOf(t, api, eventID, ep.ID)
	require.Eventually(t, func() bool { return len(rcv.Hits()) == 1 }, 10*time.Second, 50*time.Millisecond)

	require.Equal(t, http.StatusOK, api.do("POST", "/v1/events/"+eventID+"/expunge", map[string]string{"reason": "erasure request"}, nil))
	var span sdktrace.ReadOnlySpan
	require.Eventually(t, func() bool {
		for _, s := range rec.Ended() {
			if s.Name() == "hookd.event.expunge" && attr(s, "hookd.event.id") == eventID {
				span = s
				return true
			}
		}
		return false
	}, 10*time.Second, 50*time.Millisecond, "spans: %v", names(rec.Ended()))
	require.NotEqual(t, callerTrace, span.SpanContext().TraceID())
	require.Len(t, span.Links(), 1)
	require.Equal(t, callerTrace, span.Links()[0].SpanContext.TraceID(), "linked to the delivery's trace")
}

// TestTracingRecoverLinksToTheDeliveries: a delivery posted in the
// caller's trace is held by its disabled endpoint; the recover that lets
// it go is a span linked to that trace, and the delivery arrives.
func TestTracingRecoverLinksToTheDeliveries(t *testing.T) {
	dev, api, rec := tracedDev(t)

	rcv := newReceiver(t, nil)
	ep := api.createEndpoint(map[string]any{"url": rcv.URL, "event_types": []string{"trace.recovered"}, "enabled": false})
	callerTrace, _ := trace.TraceIDFromHex("7ef92f3577b34da6a3ce929d0e0e4739")
	eventID := "evt_trace_" + uniq()
	postTraced(t, dev, eventID, "trace.recovered", callerTrace)
	id := deliveryIDOf(t, api, eventID, ep.ID)
	require.Eventually(t, func() bool {
		var d deliveryState
		return api.do("GET", "/v1/deliveries/"+id, nil, &d) == http.StatusOK && d.WaitReason == "endpoint disabled"
	}, 10*time.Second, 50*time.Millisecond)

	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+ep.ID+"/recover", map[string]string{"reason": "fixed"}, nil))
	require.EqualValues(t, "delivered", api.waitDelivery(id, 30*time.Second).Status)
	var span sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "POST /v1/endpoints/{id}/recover" {
			span = s
		}
	}
	require.NotNil(t, span, "spans: %v", names(rec.Ended()))
	require.Equal(t, ep.ID, attr(span, "hookd.endpoint.id"))
	require.NotEqual(t, callerTrace, span.SpanContext().TraceID())
	require.Len(t, span.Links(), 1)
	require.Equal(t, callerTrace, span.Links()[0].SpanContext.TraceID(), "linked to the held delivery's trace")
}

// tracedDev is a hookd dev of the test's own whose spans a recorder keeps,
// with its API client.
func tracedDev(t *testing.T) (*app.Dev, *apiClient, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	dev := ownDev(t, func(c *app.DevConfig) { c.TracerProvider = tp })
	return dev, &apiClient{t: t, dev: dev}, rec
}

// postTraced posts an empty event of eventType as a caller in trace tid
// would (a traceparent naming it), and requires the 202.
func postTraced(t *testing.T, dev *app.Dev, eventID, eventType string, tid trace.TraceID) {
	t.Helper()
	body := fmt.Sprintf(`{"event_id":%q,"type":%q,"payload":{}}`, eventID, eventType)
	req, err := http.NewRequest("POST", dev.APIURL+"/v1/events", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+dev.APIKey)
	req.Header.Set("traceparent", "00-"+tid.String()+"-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
}
