// Command hookd is the webhook delivery service: `hookd dev` runs an
// embedded Temporal server, its Web UI, a worker and the HTTP API in one
// process; other subcommands run a reference receiver and talk to the API.
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

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `hookd — webhook delivery you can trust in production

Usage:
  hookd dev        run Temporal (embedded), the Web UI, a worker and the API
  hookd worker     run a stateless worker against a Temporal cluster and PostgreSQL
  hookd api        run the stateless HTTP API against a Temporal cluster and PostgreSQL
  hookd serve      run both
  hookd receiver   run the reference receiver (verifies, deduplicates, injects faults)
  hookd tenants    manage tenants and their tokens through the API
  hookd endpoints  manage endpoints through the API
  hookd send       send an event through the API
  hookd events     list recorded events, show one with its deliveries
  hookd deliveries list deliveries or show one
  hookd dlq        list, inspect and redrive dead letters
  hookd bench      measure throughput, latency and cost per delivery
  hookd version    print the version

Run "hookd <command> -h" for a command's flags.
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "hookd:", err)
		}
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return flag.ErrHelp
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "dev":
		cfg, err := parseDevFlags(args[1:], stderr)
		if err != nil {
			return err
		}
		return runDev(ctx, cfg, stdout, newLogger(stderr, cfg.LogLevel))
	case "bench":
		return runBenchCommand(ctx, args[1:], stdout, stderr)
	case "receiver":
		cfg, err := parseReceiverFlags(args[1:], stderr)
		if err != nil {
			return err
		}
		return runReceiver(ctx, cfg, stdout)
	case "worker", "api", "serve":
		return runServe(ctx, args[0], args[1:], stdout, stderr)
	case "endpoints", "send", "events", "deliveries", "dlq", "tenants":
		return runClient(ctx, args[0], args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "hookd", version)
		return nil
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
}

func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
