package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/hookd/hookd/app"
	"github.com/hookd/hookd/delivery"
	"github.com/hookd/hookd/embedded"
	"github.com/hookd/hookd/namespace"
)

// devOptions is `hookd dev` configuration: the app's, plus whether to run
// only the embedded Temporal server and UI.
type devOptions struct {
	app.DevConfig
	// OnlyTemporal runs just Temporal and the Web UI, for `hookd worker`
	// and `hookd api` processes on the same machine.
	OnlyTemporal bool
	// TemporalDatabaseURL, with OnlyTemporal, persists the embedded
	// Temporal server in PostgreSQL (this database and one named
	// <database>_visibility) instead of SQLite files in the data dir.
	TemporalDatabaseURL string
	// LogLevel is hookd's own log level, applied to the logger it builds.
	LogLevel slog.Level
}

// runOnlyTemporal runs `hookd dev --only-temporal` until ctx is done.
func runOnlyTemporal(ctx context.Context, o devOptions, stdout io.Writer, logger *slog.Logger) error {
	cfg := o.DevConfig
	cfg.Logger = logger
	var srv *embedded.Server
	var err error
	persistence := "SQLite files in " + cfg.DataDir
	if o.TemporalDatabaseURL != "" {
		pg := &embedded.Postgres{URL: o.TemporalDatabaseURL}
		persistence = "PostgreSQL " + pg.Redacted() + " (and its _visibility database)"
		srv, err = startTemporalOnPostgres(ctx, cfg, pg)
	} else {
		srv, err = app.StartTemporalOnly(ctx, cfg)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, `hookd %s dev --only-temporal is running
  Temporal:   %s  (namespace %q, retention %s)
  Web UI:     %s
  Persisted:  %s
Run workers and the API against it, e.g.
  TEMPORAL_ADDRESS=%s hookd worker --database-url ... --master-key ... --payload-keys ...
Press Ctrl-C to stop.
`, version, cfg.TemporalAddr, cfg.Namespace, cfg.Retention, orNone(uiURL(cfg.UIAddr)), persistence, cfg.TemporalAddr)
	<-ctx.Done()
	fmt.Fprintln(stdout, "stopping...")
	srv.Stop()
	return nil
}

// startTemporalOnPostgres is app.StartTemporalOnly with Temporal's
// persistence in PostgreSQL: the embedded server and Web UI, hookd's
// search attributes, and the namespace retention raised to cfg.Retention.
func startTemporalOnPostgres(ctx context.Context, cfg app.DevConfig, pg *embedded.Postgres) (*embedded.Server, error) {
	srv, err := embedded.Start(embedded.Options{
		Postgres: pg, FrontendAddr: cfg.TemporalAddr, Namespace: cfg.Namespace,
		UIAddr: cfg.UIAddr, Logger: cfg.Logger, LogLevel: cfg.TemporalLogLevel,
		SearchAttributes: delivery.SearchAttributes(),
	})
	if err != nil {
		return nil, err
	}
	c, err := client.DialContext(ctx, client.Options{HostPort: cfg.TemporalAddr, Namespace: cfg.Namespace,
		Logger: sdklog.NewStructuredLogger(cfg.Logger.With("component", "temporal-sdk"))})
	if err != nil {
		srv.Stop()
		return nil, fmt.Errorf("connect to temporal: %w", err)
	}
	defer c.Close()
	if err := namespace.Ensure(ctx, c, cfg.Namespace, cfg.Retention, true, cfg.Logger); err != nil {
		srv.Stop()
		return nil, err
	}
	return srv, nil
}

func uiURL(addr string) string {
	if addr == "" {
		return ""
	}
	return "http://" + addr
}
