package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/tracing"
)

// tracedRoutes are the routes served in a span of their own when tracing
// is on: ingest, redrive and recover, the writes that start work in
// Temporal. The rest are reads and configuration.
// The value names the attribute that takes the route's {id}, if any.
var tracedRoutes = map[string]string{
	"POST /events":                    "",
	"POST /events/batch":              "",
	"POST /dead-letters/redrive":      "",
	"POST /dead-letters/{id}/redrive": "hookd.delivery.id",
	"POST /endpoints/{id}/recover":    "hookd.endpoint.id",
}

// traced is rt's handler, in a server span when tracing is on and rt is
// one of tracedRoutes. The span continues the caller's trace when the
// request carries a valid traceparent. Tracing off, it is rt's handler
// itself.
func (s *Server) traced(rt Route) http.HandlerFunc {
	idKey, ok := tracedRoutes[rt.Method+" "+rt.Pattern]
	if s.tracer == nil || !ok {
		return rt.handle
	}
	route := "/v1" + rt.Pattern
	name := rt.Method + " " + route
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, span := s.tracer.Start(tracing.Extract(r.Context(), r.Header), name,
			trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", rt.Method), attribute.String("http.route", route)))
		defer span.End()
		if idKey != "" {
			span.SetAttributes(attribute.String(idKey, chi.URLParam(r, "id")))
		}
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		rt.handle(sw, r.WithContext(ctx))
		span.SetAttributes(attribute.Int("http.response.status_code", sw.code))
		if sw.code >= 500 {
			span.SetStatus(codes.Error, http.StatusText(sw.code))
		}
	}
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// traceEvent names the event a POST /v1/events span ingested and its
// fan-out: the event's ID, type and tenant, the deliveries and whether
// it was a duplicate. Never the payload.
func (s *Server) traceEvent(ctx context.Context, ev ingest.Event, out ingest.Result, err error) {
	if s.tracer == nil {
		return
	}
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(
		attribute.String("hookd.event.id", ev.ID),
		attribute.String("hookd.event.type", ev.Type),
		attribute.String("hookd.tenant.id", ev.TenantID),
	)
	if err == nil {
		span.SetAttributes(attribute.Int("hookd.deliveries", len(out.Deliveries)), attribute.Bool("hookd.duplicate", out.Duplicate))
	}
}

// span starts an internal span when tracing is on, with opts; end records err's API
// code (never its message, which may quote the caller) and ends it.
// Tracing off, ctx is returned as is and end does nothing.
func (s *Server) span(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, func(error)) {
	if s.tracer == nil {
		return ctx, func(error) {}
	}
	ctx, span := s.tracer.Start(ctx, name, opts...)
	return ctx, func(err error) {
		if err != nil {
			code := CodeInternal
			if e := (*Error)(nil); errors.As(err, &e) {
				code = e.Code
			}
			span.SetStatus(codes.Error, code)
		}
		span.End()
	}
}

// startLinks links to the trace a workflow was started in: the span
// context its start event's header carries (a dead letter's is the
// failing delivery's attempt). None when the workflow or the context
// cannot be read: a link is a convenience, never a reason to fail.
func (s *Server) startLinks(ctx context.Context, workflowID string) []trace.Link {
	it := s.temporal.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return nil
	}
	ev, err := it.Next()
	if err != nil {
		return nil
	}
	sc := tracing.FromHeader(ev.GetWorkflowExecutionStartedEventAttributes().GetHeader())
	if !sc.IsValid() {
		return nil
	}
	return []trace.Link{{SpanContext: sc}}
}

// RedriveDeadLetter asks the dead letter of a delivery ID, if the scope of
// ctx may see it, to start a fresh run of the delivery, recording the
// scope's actor and reason; in a hookd.redrive span when tracing is on,
// linked to the trace of the delivery that failed.
func (s *Server) RedriveDeadLetter(ctx context.Context, id, reason string) error {
	if err := permit(ctx, authz.Redrive); err != nil {
		return err
	}
	if s.tracer == nil {
		return s.redriveDeadLetter(ctx, id, reason)
	}
	ctx, end := s.span(ctx, "hookd.redrive", trace.WithAttributes(attribute.String("hookd.delivery.id", id)),
		trace.WithLinks(s.startLinks(ctx, delivery.DeadLetterID(id))...))
	err := s.redriveDeadLetter(ctx, id, reason)
	end(err)
	return err
}

// RedriveDeadLetters starts a bulk redrive of the dead letters f selects
// in the scope of ctx, at rate per second (nil: DefaultRedriveRate), in a
// hookd.redrive span when tracing is on. A tenant scope must name its
// tenant in f.
func (s *Server) RedriveDeadLetters(ctx context.Context, f DeadLetterFilter, rate *float64, reason string) (RedriveStarted, error) {
	if err := permit(ctx, authz.Redrive); err != nil {
		return RedriveStarted{}, err
	}
	if s.tracer == nil {
		return s.redriveDeadLetters(ctx, f, rate, reason)
	}
	ctx, end := s.span(ctx, "hookd.redrive", trace.WithAttributes(attribute.Bool("hookd.redrive.bulk", true)))
	out, err := s.redriveDeadLetters(ctx, f, rate, reason)
	if err == nil {
		trace.SpanFromContext(ctx).SetAttributes(attribute.String("hookd.redrive.job_id", out.JobID), attribute.Int64("hookd.redrive.matched", out.Matched))
	}
	end(err)
	return out, err
}
