// Command hookd is the webhook delivery service: `hookd dev` runs an
// embedded Temporal server, its Web UI, a worker and the HTTP API in one
// process; `hookd worker|api|serve` run against a Temporal cluster; other
// subcommands run a reference receiver and talk to the API. The command
// tree lives in internal/cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/hookd/hookd/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, version, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
