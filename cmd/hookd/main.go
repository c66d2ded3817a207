// Command hookd is the webhook delivery service: `hookd dev` runs an
// embedded Temporal server, its Web UI, a worker and the HTTP API in one
// process; `hookd worker|api|serve` run against a Temporal cluster; other
// subcommands run a reference receiver and talk to the API. The command
// tree is built on cobra (cli.go): nested help, shell completion
// (`hookd completion bash|zsh|fish`), exit status 2 for usage errors and 1
// for failures, each reported as one line on stderr.
package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := newEnv(os.Stdin, os.Stdout, os.Stderr).execute(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
