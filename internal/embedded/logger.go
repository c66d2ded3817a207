package embedded

import (
	"context"
	"log/slog"
	"os"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// slogLogger adapts log/slog to the Temporal server's logger interface.
type slogLogger struct {
	log   *slog.Logger
	level slog.Leveler
}

var _ log.Logger = slogLogger{}

func (l slogLogger) emit(level slog.Level, msg string, tags []tag.Tag) {
	if !l.log.Enabled(context.Background(), level) || level < l.level.Level() {
		return
	}
	attrs := make([]slog.Attr, 0, len(tags))
	for _, t := range tags {
		attrs = append(attrs, slog.Any(t.Key(), t.Value()))
	}
	l.log.LogAttrs(context.Background(), level, msg, attrs...)
}

func (l slogLogger) Debug(msg string, tags ...tag.Tag)  { l.emit(slog.LevelDebug, msg, tags) }
func (l slogLogger) Info(msg string, tags ...tag.Tag)   { l.emit(slog.LevelInfo, msg, tags) }
func (l slogLogger) Warn(msg string, tags ...tag.Tag)   { l.emit(slog.LevelWarn, msg, tags) }
func (l slogLogger) Error(msg string, tags ...tag.Tag)  { l.emit(slog.LevelError, msg, tags) }
func (l slogLogger) DPanic(msg string, tags ...tag.Tag) { l.emit(slog.LevelError, msg, tags) }
func (l slogLogger) Panic(msg string, tags ...tag.Tag) {
	l.emit(slog.LevelError, msg, tags)
	panic(msg)
}
func (l slogLogger) Fatal(msg string, tags ...tag.Tag) {
	l.emit(slog.LevelError, msg, tags)
	os.Exit(1)
}
