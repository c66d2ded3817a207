package app

import (
	"context"
	"log/slog"

	sdklog "go.temporal.io/sdk/log"
)

// quietActivityErrors lowers the SDK's per-failure "Activity error." log to
// debug: a retryable delivery failure is routine, and the activity already
// logs each attempt with its outcome (and without the URL).
type quietActivityErrors struct{ slog.Handler }

func (h quietActivityErrors) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "Activity error." && r.Level == slog.LevelError {
		if !h.Handler.Enabled(ctx, slog.LevelDebug) {
			return nil
		}
		r.Level = slog.LevelDebug
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietActivityErrors) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietActivityErrors{h.Handler.WithAttrs(attrs)}
}

func (h quietActivityErrors) WithGroup(name string) slog.Handler {
	return quietActivityErrors{h.Handler.WithGroup(name)}
}

// sdkLogger adapts hookd's logger for the Temporal SDK.
func sdkLogger(l *slog.Logger) sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(quietActivityErrors{l.Handler()}).With("component", "temporal-sdk"))
}
