package app

import (
	"log/slog"

	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/tracing"
)

// withTracing is the tracer of tp (nil, tracing off, when tp is nil) and
// the logger that stamps trace_id and span_id on records logged within a
// span; tracing off, logger is returned unchanged.
func withTracing(tp trace.TracerProvider, logger *slog.Logger) (*tracing.Tracer, *slog.Logger) {
	t := tracing.New(tp)
	if t == nil {
		return nil, logger
	}
	return t, slog.New(tracing.LogHandler(logger.Handler()))
}

// applyTracing registers the Temporal SDK's tracing interceptor on opts,
// hence on every worker built on the client; tracing off (t nil), it
// registers nothing.
func applyTracing(t *tracing.Tracer, opts *client.Options) error {
	if t == nil {
		return nil
	}
	i, err := t.Interceptor()
	if err != nil {
		return err
	}
	opts.Interceptors = append(opts.Interceptors, i)
	return nil
}
