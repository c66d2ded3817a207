package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/metrics"
	"github.com/hookd/hookd/internal/namespace"
	"github.com/hookd/hookd/internal/portal"
	"github.com/hookd/hookd/internal/worker"
)

// devFlags defines `hookd dev`'s flags on fs, into o.
func devFlags(fs envFlags, o *devOptions) {
	fs.str(&o.DataDir, "data-dir", "HOOKD_DATA_DIR", ".hookd", "directory for Temporal's and hookd's SQLite files, the master key and the API key")
	fs.str(&o.HTTPAddr, "http-addr", "HOOKD_HTTP_ADDR", "127.0.0.1:8080", "listen address of the HTTP API")
	fs.str(&o.UIAddr, "ui-addr", "HOOKD_UI_ADDR", "127.0.0.1:8233", "listen address of the Temporal Web UI (empty disables it)")
	fs.str(&o.PublicURL, "public-url", "HOOKD_PUBLIC_URL", "", "base URL of the API as browsers reach it, for portal sign-in links (default: the API's listen URL)")
	portalFrameFlag(fs, &o.frameAncestors)
	fs.str(&o.MetricsAddr, "metrics-addr", "HOOKD_METRICS_ADDR", "", "listen address serving only Prometheus /metrics, without an API key, for a scraper (empty disables it; /metrics on --http-addr needs the API key)")
	fs.str(&o.TemporalAddr, "temporal-addr", "HOOKD_TEMPORAL_ADDR", "127.0.0.1:7233", "gRPC address of the embedded Temporal frontend")
	fs.str(&o.Namespace, "namespace", "HOOKD_NAMESPACE", "default", "Temporal namespace")
	fs.secret(&o.APIKey, "api-key", "HOOKD_API_KEY", "API bearer token (default: created once and kept in the data dir)")
	fs.duration(&o.Retention, "retention", "HOOKD_RETENTION", namespace.DefaultRetention, "namespace retention: the window in which a re-posted event ID is a duplicate")
	fs.duration(&o.DeadLetterRetention, "dead-letter-retention", "HOOKD_DEAD_LETTER_RETENTION", activities.DefaultDeadLetterRetention, "how long a dead letter waits for a redrive")
	fs.level(&o.TemporalLogLevel, "temporal-log-level", "HOOKD_TEMPORAL_LOG_LEVEL", slog.LevelError, "log level of the embedded Temporal server")
	fs.boolean(&o.OnlyTemporal, "only-temporal", "HOOKD_ONLY_TEMPORAL", false, "run only the embedded Temporal server and Web UI (for hookd worker and hookd api processes)")
	fs.secret(&o.TemporalDatabaseURL, "temporal-database-url", "HOOKD_TEMPORAL_DATABASE_URL", "with --only-temporal: persist Temporal in PostgreSQL, postgres://user:password@host:port/temporal (that database and <database>_visibility, created with their schemas if missing) instead of SQLite files in the data dir")
	fs.integer(&o.TemporalShards, "temporal-shards", "HOOKD_TEMPORAL_SHARDS", 0, "history shards of the embedded Temporal server when its persistence is created, 1 to 4096 (0: 8 on PostgreSQL, 1 on SQLite); existing persistence keeps its count, and a count given that differs stops the server. More let Temporal on PostgreSQL work on more deliveries at once")
	fs.boolean(&o.TemporalAllVisibilityIndexes, "temporal-all-visibility-indexes", "HOOKD_TEMPORAL_ALL_VISIBILITY_INDEXES", false, "keep every index of Temporal's visibility table, for your own queries on other columns (default: drop those no hookd or Web UI query uses; on PostgreSQL this creates the dropped ones again)")
	fs.boolean(&o.TemporalStockVisibilityColumns, "temporal-stock-visibility-columns", "HOOKD_TEMPORAL_STOCK_VISIBILITY_COLUMNS", false, "with --temporal-database-url: keep the generated columns of Temporal's visibility table as its schema ships them (default: plain columns a trigger fills from the same expressions, which PostgreSQL then prepares once per connection instead of for every write; this makes them generated again, rewriting the table)")
	fs.boolean(&o.TemporalStockExecutionStore, "temporal-stock-execution-store", "HOOKD_TEMPORAL_STOCK_EXECUTION_STORE", false, "run the embedded server's execution store as Temporal ships it (default: a workflow run's first read after its creation is answered from what the creation wrote, the workflow-task timeout timer it was created with is deleted when it closes, and a run's new history is written in the run's own transaction: two reads of nine queries each and two commits per delivery)")
	fs.integer(&o.TemporalDBMaxConns, "temporal-db-max-conns", "HOOKD_TEMPORAL_DB_MAX_CONNS", 20, "with --temporal-database-url: connections each of the embedded server's four services may open to the main database (visibility keeps 2)")
	circuitFlags(fs, &o.Circuit)
	autoDisableFlag(fs, &o.AutoDisableAfter)
	limitFlags(fs, &o.Limits)
	defaultSigningFlag(fs, &o.DefaultSigning)
	requireEventTypesFlag(fs, &o.RequireEventTypes)
	egressProxyFlag(fs, &o.egressProxy)
	metricsSeriesFlag(fs, &o.Observability.MaxEndpointSeries)
	profileFlag(fs, &o.pprofAddr)
	fs.integer(&o.WorkflowCacheSize, "workflow-cache", "HOOKD_WORKFLOW_CACHE", worker.DefaultWorkflowCacheSize, "deliveries the worker keeps in memory between workflow tasks (bounds memory while many are parked)")
	fs.level(&o.LogLevel, "log-level", "HOOKD_LOG_LEVEL", slog.LevelInfo, "log level")
	fs.offSwitch(&o.Payload.NoEventKeys, "event-keys", "HOOKD_EVENT_KEYS", "seal each event's body in Temporal with the event's own key, which an expunge destroys (on), or with the payload codec alone (off: an expunge cannot reach Temporal's copy)")
	fs.offSwitch(&o.Payload.Off, "payload-encryption", "HOOKD_PAYLOAD_ENCRYPTION", "encrypt payloads in Temporal (on, with the keys in <data-dir>/payload-keys) or write them in plaintext (off)")
}

// maxTemporalShards bounds --temporal-shards: Temporal keeps a set of
// queue processors per shard, so a count far past what one server's
// persistence can serve only costs memory and idle work.
const maxTemporalShards = 4096

// check validates the options once flags and environment are applied.
func (o *devOptions) check() error {
	if err := checkAutoDisable(o.AutoDisableAfter); err != nil {
		return err
	}
	if err := checkCircuit(o.Circuit); err != nil {
		return err
	}
	if o.TemporalShards < 0 || o.TemporalShards > maxTemporalShards {
		return usagef("--temporal-shards must be from 1 to %d (or 0 for the default), not %d", maxTemporalShards, o.TemporalShards)
	}
	if o.TemporalDBMaxConns < 1 {
		return usagef("--temporal-db-max-conns must be at least 1, not %d", o.TemporalDBMaxConns)
	}
	if o.TemporalDatabaseURL != "" && !o.OnlyTemporal {
		return usagef("--temporal-database-url needs --only-temporal (plain hookd dev keeps Temporal in SQLite)")
	}
	var err error
	if o.EgressProxy, err = parseEgressProxy(o.egressProxy); err != nil {
		return err
	}
	if o.PortalFrameAncestors, err = portal.ParseFrameAncestors(o.frameAncestors); err != nil {
		return usagef("portal-frame-ancestors: %w", err)
	}
	return nil
}

func devCommand(e *clientEnv) *cobra.Command {
	var o devOptions
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "run Temporal (embedded), the Web UI, a worker and the API in one process",
		Long: `Run everything on this machine: an embedded Temporal server with its Web UI
(state in SQLite files under the data dir, so it survives a restart), a
worker and the HTTP API, all on 127.0.0.1. Deliveries may reach loopback
receivers. Ctrl-C stops it.

With --only-temporal it runs only Temporal and the Web UI, for hookd worker
and hookd api processes; add --temporal-database-url to persist Temporal in
PostgreSQL instead of SQLite.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			o.Version = e.version
			return runDev(cmd.Context(), o, e.stdout, newLogger(e.stderr, o.LogLevel))
		},
	}
	devFlags(envFlags{cmd.Flags()}, &o)
	return cmd
}

func runDev(ctx context.Context, cfg devOptions, stdout io.Writer, logger *slog.Logger) error {
	if _, err := app.ServeProfiles(ctx, cfg.pprofAddr, logger); err != nil {
		return err
	}
	if cfg.OnlyTemporal {
		return runOnlyTemporal(ctx, cfg, stdout, logger)
	}
	cfg.Logger = logger
	tp, stopTracing, err := envTracing(ctx, cfg.Version, logger)
	if err != nil {
		return err
	}
	defer stopTracing()
	cfg.TracerProvider = tp
	if cfg.MetricsExporter, err = metrics.OTLPExporterFromEnv(ctx); err != nil {
		return err
	}
	dev, err := app.StartDev(ctx, cfg.DevConfig)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, `hookd dev is running (version %s)
  API:        %s
  API key:    %s
  Web UI:     %s
  Temporal:   %s  (namespace %q)
  Data dir:   %s
Press Ctrl-C to stop.
`, cfg.Version, dev.APIURL, dev.APIKey, orNone(dev.UIURL), cfg.TemporalAddr, cfg.Namespace, cfg.DataDir)
	err = dev.Wait(ctx)
	fmt.Fprintln(stdout, "stopping...")
	start := time.Now()
	dev.Stop(context.Background())
	logger.Info("stopped", "took", time.Since(start).Round(time.Millisecond))
	return err
}

func orNone(s string) string {
	if s == "" {
		return "(disabled)"
	}
	return s
}
