package activities

import (
	"context"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/store"
)

// startAttemptSpan starts the client span of one HTTP attempt, a child of
// the activity's span. The endpoint's URL is reduced to its scheme, host
// and port: the path and query may carry a receiver's token.
func (a *Activities) startAttemptSpan(ctx context.Context, req delivery.Request, ep *store.Endpoint, n int) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{
		attribute.String("http.request.method", "POST"),
		attribute.String("hookd.delivery.id", req.DeliveryID),
		attribute.String("hookd.event.id", req.EventID),
		attribute.String("hookd.event.type", req.EventType),
		attribute.String("hookd.endpoint.id", req.EndpointID),
		attribute.Int("hookd.attempt", n),
		attribute.Int("hookd.run", req.Run),
	}
	if u, err := url.Parse(ep.URL); err == nil {
		attrs = append(attrs, attribute.String("url.scheme", u.Scheme), attribute.String("server.address", u.Hostname()))
		if p, err := strconv.Atoi(u.Port()); err == nil {
			attrs = append(attrs, attribute.Int("server.port", p))
		}
	}
	return a.tracer.Start(ctx, "POST", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// endAttemptSpan records the attempt's status, outcome and duration on
// its span and ends it. A failure's status names its class
// (timeout, http_5xx, ...), never the error's text.
func endAttemptSpan(span trace.Span, at delivery.Attempt) {
	attrs := []attribute.KeyValue{
		attribute.String("hookd.outcome", string(at.Outcome)),
		attribute.Float64("hookd.attempt.duration_ms", float64(at.Duration.Microseconds())/1000),
	}
	if at.Status != 0 {
		attrs = append(attrs, attribute.Int("http.response.status_code", at.Status))
	}
	if at.ErrorClass != "" {
		attrs = append(attrs, attribute.String("error.type", at.ErrorClass))
	}
	if at.NextDelay > 0 {
		attrs = append(attrs, attribute.Float64("hookd.next_delay_s", at.NextDelay.Seconds()))
	}
	span.SetAttributes(attrs...)
	if at.Outcome != delivery.OutcomeSuccess {
		span.SetStatus(codes.Error, at.ErrorClass)
	}
	span.End()
}
