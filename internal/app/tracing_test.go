package app

import (
	"log/slog"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.temporal.io/sdk/client"
)

// TestTracingOffRegistersNothing: without a tracer provider there is no
// tracer, the logger is the one given and the Temporal client gets no
// interceptor; with one, it gets the SDK's tracing interceptor.
func TestTracingOffRegistersNothing(t *testing.T) {
	logger := slog.Default()
	tracer, got := withTracing(nil, logger)
	if tracer != nil || got != logger {
		t.Fatalf("tracing off: tracer %v, logger changed %v", tracer, got != logger)
	}
	var opts client.Options
	if err := applyTracing(tracer, &opts); err != nil || len(opts.Interceptors) != 0 {
		t.Fatalf("tracing off: %d interceptors, %v", len(opts.Interceptors), err)
	}
	tc := TemporalConfig{Address: "127.0.0.1:7233", Namespace: "default"}
	if opts, err := tc.clientOptions(logger); err != nil || len(opts.Interceptors) != 0 {
		t.Fatalf("serve's client, tracing off: %d interceptors, %v", len(opts.Interceptors), err)
	}

	tracer, got = withTracing(sdktrace.NewTracerProvider(), logger)
	if tracer == nil || got == logger {
		t.Fatal("tracing on: no tracer, or the logger does not stamp trace IDs")
	}
	tc.tracer = tracer
	if opts, err := tc.clientOptions(logger); err != nil || len(opts.Interceptors) != 1 {
		t.Fatalf("serve's client, tracing on: %d interceptors, %v", len(opts.Interceptors), err)
	}
}
