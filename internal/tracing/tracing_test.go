package tracing

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

func TestEnabled(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_SERVICE_NAME": "hookd", "OTEL_TRACES_SAMPLER": "always_on", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, false},
		{map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, false},
	} {
		if got := Enabled(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("Enabled(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}

func TestFromEnvOffIsNil(t *testing.T) {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER", "OTEL_SDK_DISABLED"} {
		t.Setenv(k, "")
	}
	t.Setenv("OTEL_SERVICE_NAME", "hookd-test")
	tp, err := FromEnv(context.Background(), "test")
	if err != nil || tp != nil {
		t.Fatalf("FromEnv with no exporter = %v, %v; want nil, nil", tp, err)
	}
	if New(nil) != nil {
		t.Fatal("New(nil) is not nil: tracing off must be a nil *Tracer")
	}
}

func TestFromEnvProtocols(t *testing.T) {
	for _, p := range []string{"grpc", "http/protobuf"} {
		t.Run(p, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", p)
			t.Setenv("OTEL_SERVICE_NAME", "hookd-test")
			t.Setenv("OTEL_BSP_EXPORT_TIMEOUT", "100")
			tp, err := FromEnv(context.Background(), "test")
			if err != nil || tp == nil {
				t.Fatalf("FromEnv = %v, %v", tp, err)
			}
			_, span := tp.Tracer("t").Start(context.Background(), "s")
			span.End()
			ctx, cancel := context.WithTimeout(context.Background(), 0)
			defer cancel()
			_ = tp.Shutdown(ctx) // nothing listens: the export fails, fast
		})
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
	if _, err := FromEnv(context.Background(), "test"); err == nil || !strings.Contains(err.Error(), "http/json") {
		t.Fatalf("http/json: %v, want a refusal", err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "")
	t.Setenv("OTEL_TRACES_EXPORTER", "zipkin")
	if _, err := FromEnv(context.Background(), "test"); err == nil {
		t.Fatal("OTEL_TRACES_EXPORTER=zipkin accepted")
	}
}

func TestPropagation(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tr := New(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	in := http.Header{}
	in.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	in.Set("tracestate", "vendor=x")
	in.Set("baggage", "user=secret")
	ctx, span := tr.Start(Extract(context.Background(), in), "child")
	span.End()
	if got := span.SpanContext().TraceID().String(); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("trace ID %s: the incoming traceparent was not honoured", got)
	}
	out := http.Header{}
	Inject(ctx, out)
	if !strings.HasPrefix(out.Get("traceparent"), "00-4bf92f3577b34da6a3ce929d0e0e4736-"+span.SpanContext().SpanID().String()) {
		t.Fatalf("traceparent %q", out.Get("traceparent"))
	}
	if out.Get("tracestate") != "vendor=x" || out.Get("baggage") != "" {
		t.Fatalf("tracestate %q, baggage %q", out.Get("tracestate"), out.Get("baggage"))
	}
	none := http.Header{}
	Inject(context.Background(), none)
	if len(none) != 0 {
		t.Fatalf("no span, yet headers %v", none)
	}
}

func TestLogHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewTextHandler(&buf, nil))).With("component", "x")
	log.Info("no span")
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("t").Start(context.Background(), "s")
	defer span.End()
	log.InfoContext(ctx, "in span")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if strings.Contains(lines[0], "trace_id") {
		t.Fatalf("trace_id without a span: %s", lines[0])
	}
	sc := trace.SpanContextFromContext(ctx)
	if !strings.Contains(lines[1], "trace_id="+sc.TraceID().String()) || !strings.Contains(lines[1], "span_id="+sc.SpanID().String()) {
		t.Fatalf("no trace_id/span_id: %s", lines[1])
	}
}

// FromHeader reads back what the SDK's interceptor writes into a Temporal
// header, and is the zero context for a header without it.
func TestFromHeader(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	p, err := converter.GetDefaultDataConverter().ToPayload(map[string]string{"traceparent": "00-" + tid.String() + "-" + sid.String() + "-01"})
	require.NoError(t, err)
	sc := FromHeader(&commonpb.Header{Fields: map[string]*commonpb.Payload{headerKey: p}})
	require.True(t, sc.IsValid())
	require.Equal(t, tid, sc.TraceID())
	require.Equal(t, sid, sc.SpanID())
	require.False(t, FromHeader(nil).IsValid())
	require.False(t, FromHeader(&commonpb.Header{}).IsValid())
}
