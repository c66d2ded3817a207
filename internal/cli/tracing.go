package cli

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hookd/hookd/internal/tracing"
)

// envTracing is the tracer provider the OTEL_* environment describes
// (tracing.FromEnv), or nil when it names no exporter; stop flushes the
// spans not yet exported and shuts the provider down, after the process
// stopped.
func envTracing(ctx context.Context, version string, logger *slog.Logger) (_ trace.TracerProvider, stop func(), _ error) {
	tp, err := tracing.FromEnv(ctx, version)
	if err != nil || tp == nil {
		return nil, func() {}, err
	}
	logger.Info("tracing on: exporting spans over OTLP")
	return tp, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			logger.Warn("flush traces", "error", err)
		}
	}, nil
}
