package activities

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/tracing"
)

// headerSink answers status and keeps the traceparent of each request.
type headerSink struct {
	mu     sync.Mutex
	status int
	seen   []string
}

func (h *headerSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Header.Get("traceparent"))
	h.mu.Unlock()
	w.WriteHeader(h.status)
}

func tracedEndpoint(url string, propagate bool) store.Endpoint {
	return store.Endpoint{ID: "ep_1", URL: url + "/hooks/s3cret-path?token=s3cret-query", Enabled: true, PropagateTrace: propagate}
}

// TestAttemptSpan: an attempt is a client span with its status, outcome
// and duration, the URL reduced to scheme and host; the receiver gets its
// traceparent only when the endpoint asks and hookd traces.
func TestAttemptSpan(t *testing.T) {
	sink := &headerSink{status: http.StatusServiceUnavailable}
	srv := httptest.NewServer(sink)
	defer srv.Close()
	for _, tc := range []struct {
		name              string
		traced, propagate bool
	}{{"off", false, true}, {"on", true, false}, {"on, propagated", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			sink.seen = nil
			rec := tracetest.NewSpanRecorder()
			a := newTestActivities(newFakeEndpoints(t, tracedEndpoint(srv.URL, tc.propagate)), nil, nil)
			if tc.traced {
				a.tracer = tracing.New(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
			}
			at := a.attempt(context.Background(), request("ep_1", 3), 1, nil)
			require.Equal(t, delivery.OutcomeRetryable, at.Outcome)
			require.Len(t, sink.seen, 1)
			spans := rec.Ended()
			if !tc.traced {
				require.Empty(t, spans)
				require.Empty(t, sink.seen[0], "tracing off sends no trace context")
				return
			}
			require.Len(t, spans, 1)
			s := spans[0]
			attrs := map[attribute.Key]string{}
			for _, kv := range s.Attributes() {
				attrs[kv.Key] = kv.Value.Emit()
				require.NotContains(t, kv.Value.Emit(), "s3cret", kv.Key)
			}
			require.Equal(t, "503", attrs["http.response.status_code"])
			require.Equal(t, "retryable", attrs["hookd.outcome"])
			require.Equal(t, "http_5xx", attrs["error.type"])
			require.Equal(t, "127.0.0.1", attrs["server.address"])
			require.Equal(t, "http", attrs["url.scheme"])
			require.Contains(t, attrs, attribute.Key("hookd.attempt.duration_ms"))
			if tc.propagate {
				require.Equal(t, "00-"+s.SpanContext().TraceID().String()+"-"+s.SpanContext().SpanID().String()+"-01", sink.seen[0])
			} else {
				require.Empty(t, sink.seen[0], "an endpoint that did not ask gets no trace context")
			}
		})
	}
}

// BenchmarkAttempt is one attempt against a loopback receiver with
// tracing off (a nil tracer: the code path without tracing), on with a
// no-op exporter, and on with the traceparent sent.
func BenchmarkAttempt(b *testing.B) {
	srv := httptest.NewServer(&headerSink{status: http.StatusOK})
	defer srv.Close()
	for _, bc := range []struct {
		name              string
		traced, propagate bool
	}{{"off", false, false}, {"on", true, false}, {"on-propagated", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			t := &testing.T{}
			a := newTestActivities(newFakeEndpoints(t, tracedEndpoint(srv.URL, bc.propagate)), nil, nil)
			if bc.traced {
				tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
				defer func() { _ = tp.Shutdown(context.Background()) }()
				a.tracer = tracing.New(tp)
			}
			req := request("ep_1", 3)
			b.ReportAllocs()
			for b.Loop() {
				if at := a.attempt(context.Background(), req, 1, nil); at.Outcome != delivery.OutcomeSuccess {
					b.Fatal(at.Outcome, at.Error)
				}
			}
		})
	}
}
