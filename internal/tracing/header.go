package tracing

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// headerKey is the Temporal header field in which the SDK's tracing
// interceptor carries a span's context (its default, which Interceptor
// keeps).
const headerKey = "_tracer-data"

// FromHeader is the span context a Temporal header carries (a workflow's
// start event's, for instance): the span of whoever started or signalled
// it, when that process traced. It is the zero SpanContext when the
// header carries none or cannot be read.
func FromHeader(h *commonpb.Header) trace.SpanContext {
	p := h.GetFields()[headerKey]
	if p == nil {
		return trace.SpanContext{}
	}
	var carrier map[string]string
	if err := converter.GetDefaultDataConverter().FromPayload(p, &carrier); err != nil {
		return trace.SpanContext{}
	}
	ctx := propagator.Extract(context.Background(), propagation.MapCarrier(carrier))
	return trace.SpanContextFromContext(ctx)
}
