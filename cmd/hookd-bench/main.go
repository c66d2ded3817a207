// Command hookd-bench measures hookd's throughput, latency and cost per
// delivery against a naive Temporal baseline (docs/performance.md). It is a
// command of its own so the baseline's stock test server (temporaltest, and
// with it the testing package) is never linked into the hookd binary.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := runBenchCommand(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp): // asked for: the flags are printed
	case err != nil:
		fmt.Fprintln(os.Stderr, "hookd-bench:", err)
		os.Exit(1)
	}
}

func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
