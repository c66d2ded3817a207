// Package tracing is hookd's OpenTelemetry tracing: the tracer provider
// the standard OTEL_* environment variables describe (none when they name
// no exporter), the W3C trace context hookd reads from API callers and
// sends to receivers that ask for it, the Temporal SDK's tracing
// interceptor, and the log handler that stamps trace and span IDs on
// records.
//
// Tracing off is a nil *Tracer: every caller checks for nil and takes the
// code path it took before tracing existed, so off costs nothing.
package tracing

import (
	"context"
	"fmt"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	otelinterceptor "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// Name is the instrumentation scope of hookd's own spans.
const Name = "github.com/hookd/hookd"

// propagator is the W3C trace context alone (traceparent, tracestate):
// what hookd accepts from API callers and sends to receivers. Baggage is
// neither read nor sent: it is the caller's data, not hookd's to pass on.
var propagator = propagation.TraceContext{}

// Tracer starts hookd's spans on a tracer provider. A nil *Tracer is
// tracing off; its methods must not be called (callers check for nil).
type Tracer struct {
	provider trace.TracerProvider
	tracer   trace.Tracer
}

// New returns a Tracer on tp, or nil (tracing off) when tp is nil.
func New(tp trace.TracerProvider) *Tracer {
	if tp == nil {
		return nil
	}
	return &Tracer{provider: tp, tracer: tp.Tracer(Name)}
}

// Start starts a span; see trace.Tracer.Start.
func (t *Tracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	return t.tracer.Start(ctx, name, opts...)
}

// Extract returns ctx with the remote span context of an incoming
// request's traceparent and tracestate, if valid: a span started from it
// joins the caller's trace.
func Extract(ctx context.Context, h http.Header) context.Context {
	return propagator.Extract(ctx, propagation.HeaderCarrier(h))
}

// Inject sets traceparent (and tracestate, if any) on h to the span of
// ctx; it sets nothing when ctx has no valid span.
func Inject(ctx context.Context, h http.Header) {
	propagator.Inject(ctx, propagation.HeaderCarrier(h))
}

// Interceptor is the Temporal SDK's OpenTelemetry interceptor on the
// Tracer's provider, for client.Options.Interceptors: the client's
// starts, signals and updates become spans whose context travels in the
// Temporal headers, and every worker built on that client continues them
// in workflow and activity spans. Queries are not traced: they are the
// API's reads, and each would be a trace of its own.
func (t *Tracer) Interceptor() (interceptor.Interceptor, error) {
	i, err := otelinterceptor.NewTracingInterceptor(otelinterceptor.TracerOptions{
		Tracer:              t.provider.Tracer("go.temporal.io/sdk"),
		TextMapPropagator:   propagator,
		DisableQueryTracing: true,
		DisableBaggage:      true,
	})
	if err != nil {
		return nil, fmt.Errorf("temporal tracing interceptor: %w", err)
	}
	return i, nil
}
