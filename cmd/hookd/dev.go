package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/hookd/hookd/activities"
	"github.com/hookd/hookd/app"
	"github.com/hookd/hookd/circuit"
	"github.com/hookd/hookd/namespace"
	"github.com/hookd/hookd/worker"
)

func parseDevFlags(args []string, out io.Writer) (devOptions, error) {
	var cfg devOptions
	var encryption string
	fs := newFlagSet("hookd dev", out)
	fs.str(&cfg.DataDir, "data-dir", "HOOKD_DATA_DIR", ".hookd", "directory for Temporal's and hookd's SQLite files, the master key and the API key")
	fs.str(&cfg.HTTPAddr, "http-addr", "HOOKD_HTTP_ADDR", "127.0.0.1:8080", "listen address of the HTTP API")
	fs.str(&cfg.UIAddr, "ui-addr", "HOOKD_UI_ADDR", "127.0.0.1:8233", "listen address of the Temporal Web UI (empty disables it)")
	fs.str(&cfg.TemporalAddr, "temporal-addr", "HOOKD_TEMPORAL_ADDR", "127.0.0.1:7233", "gRPC address of the embedded Temporal frontend")
	fs.str(&cfg.Namespace, "namespace", "HOOKD_NAMESPACE", "default", "Temporal namespace")
	fs.str(&cfg.APIKey, "api-key", "HOOKD_API_KEY", "", "API bearer token (default: created once and kept in the data dir)")
	fs.duration(&cfg.Retention, "retention", "HOOKD_RETENTION", namespace.DefaultRetention, "namespace retention: the window in which a re-posted event ID is a duplicate")
	fs.duration(&cfg.DeadLetterRetention, "dead-letter-retention", "HOOKD_DEAD_LETTER_RETENTION", activities.DefaultDeadLetterRetention, "how long a dead letter waits for a redrive")
	fs.level(&cfg.TemporalLogLevel, "temporal-log-level", "HOOKD_TEMPORAL_LOG_LEVEL", slog.LevelError, "log level of the embedded Temporal server")
	fs.boolean(&cfg.OnlyTemporal, "only-temporal", "HOOKD_ONLY_TEMPORAL", false, "run only the embedded Temporal server and Web UI (for hookd worker and hookd api processes)")
	cfg.Circuit = circuit.DefaultPolicy
	fs.duration(&cfg.Circuit.BaseCooldown, "circuit-cooldown", "HOOKD_CIRCUIT_COOLDOWN", circuit.DefaultPolicy.BaseCooldown, "how long an endpoint's circuit stays open after it trips (doubles on each re-open)")
	fs.duration(&cfg.Circuit.MaxCooldown, "circuit-max-cooldown", "HOOKD_CIRCUIT_MAX_COOLDOWN", circuit.DefaultPolicy.MaxCooldown, "the cap on the doubling cooldown")
	fs.integer(&cfg.WorkflowCacheSize, "workflow-cache", "HOOKD_WORKFLOW_CACHE", worker.DefaultWorkflowCacheSize, "deliveries the worker keeps in memory between workflow tasks (bounds memory while many are parked)")
	fs.level(&cfg.LogLevel, "log-level", "HOOKD_LOG_LEVEL", slog.LevelInfo, "log level")
	fs.str(&encryption, "payload-encryption", "HOOKD_PAYLOAD_ENCRYPTION", "on", "encrypt payloads in Temporal (on, with the keys in <data-dir>/payload-keys) or write them in plaintext (off)")
	if err := fs.parse(args); err != nil {
		return cfg, err
	}
	var err error
	if cfg.Payload.Off, err = payloadOff(encryption); err != nil {
		return cfg, err
	}
	if cfg.Circuit.BaseCooldown <= 0 || cfg.Circuit.MaxCooldown < cfg.Circuit.BaseCooldown {
		return cfg, fmt.Errorf("--circuit-cooldown must be positive and at most --circuit-max-cooldown")
	}
	cfg.Version = version
	return cfg, nil
}

func runDev(ctx context.Context, cfg devOptions, stdout io.Writer, logger *slog.Logger) error {
	if cfg.OnlyTemporal {
		return runOnlyTemporal(ctx, cfg.DevConfig, stdout, logger)
	}
	cfg.Logger = logger
	dev, err := app.StartDev(ctx, cfg.DevConfig)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, `hookd %s dev is running
  API:        %s
  API key:    %s
  Web UI:     %s
  Temporal:   %s  (namespace %q)
  Data dir:   %s
Press Ctrl-C to stop.
`, version, dev.APIURL, dev.APIKey, orNone(dev.UIURL), cfg.TemporalAddr, cfg.Namespace, cfg.DataDir)
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
