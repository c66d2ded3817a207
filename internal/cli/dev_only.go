package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/embedded"
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
	// TemporalDBMaxConns, with TemporalDatabaseURL, bounds each service's
	// pool to the main database (embedded.Postgres.MaxConns).
	TemporalDBMaxConns int
	// LogLevel is hookd's own log level, applied to the logger it builds.
	LogLevel slog.Level
	// frameAncestors is --portal-frame-ancestors as given.
	frameAncestors string
	// egressProxy is --egress-proxy as given.
	egressProxy string
	// pprofAddr is where the process serves its runtime profiles.
	pprofAddr string
}

// runOnlyTemporal runs `hookd dev --only-temporal` until ctx is done.
func runOnlyTemporal(ctx context.Context, o devOptions, stdout io.Writer, logger *slog.Logger) error {
	cfg := o.DevConfig
	cfg.Logger = logger
	persistence := "SQLite files in " + cfg.DataDir
	if o.TemporalDatabaseURL != "" {
		cfg.TemporalPostgres = &embedded.Postgres{URL: o.TemporalDatabaseURL, MaxConns: o.TemporalDBMaxConns}
		persistence = "PostgreSQL " + cfg.TemporalPostgres.Redacted() + " (and its _visibility database)"
	}
	srv, err := app.StartTemporalOnly(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, `hookd dev --only-temporal is running (version %s)
  Temporal:   %s  (namespace %q, retention %s)
  Web UI:     %s
  Persisted:  %s  (%d history shards)
Run workers and the API against it, e.g.
  TEMPORAL_ADDRESS=%s hookd worker --database-url ... --master-key ... --payload-keys ...
Press Ctrl-C to stop.
`, cfg.Version, cfg.TemporalAddr, cfg.Namespace, cfg.Retention, orNone(uiURL(cfg.UIAddr)), persistence, srv.HistoryShards(), cfg.TemporalAddr)
	<-ctx.Done()
	fmt.Fprintln(stdout, "stopping...")
	srv.Stop()
	return nil
}

func uiURL(addr string) string {
	if addr == "" {
		return ""
	}
	return "http://" + addr
}
