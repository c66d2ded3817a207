package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/metrics"
	"github.com/hookd/hookd/internal/namespace"
	"github.com/hookd/hookd/internal/portal"
	"github.com/hookd/hookd/internal/store/secretbox"
	"github.com/hookd/hookd/internal/worker"
)

// serveFlags is `hookd worker|api|serve` configuration as given, before
// parsing into app.ServeConfig.
type serveFlags struct {
	cfg                app.ServeConfig
	masterKey, apiKeys string
	allowCIDRs         string
	egressProxy        string
	trustedProxies     string
	frameAncestors     string
	payload            payloadFlags
	logLevel           slog.Level
	logFormat          string
	pprofAddr          string
}

// newServeFlagSet defines the flags of `hookd <mode>`; every flag also
// reads an environment variable (the Temporal ones by the conventional
// TEMPORAL_* names, the temporal CLI's).
func newServeFlagSet(mode string, f *serveFlags) envFlags {
	fs := envFlags{pflag.NewFlagSet("hookd "+mode, pflag.ContinueOnError)}
	c := &f.cfg
	t := &c.Temporal
	fs.str(&t.Address, "temporal-address", "TEMPORAL_ADDRESS", "127.0.0.1:7233", "host:port of the Temporal frontend")
	fs.str(&t.Namespace, "temporal-namespace", "TEMPORAL_NAMESPACE", "default", "Temporal namespace (must exist)")
	fs.boolean(&c.Temporal.TLS, "temporal-tls", "TEMPORAL_TLS", false, "connect with TLS and the system roots (implied by a certificate, CA, server name or API key)")
	fs.str(&t.TLSCert, "temporal-tls-cert", "TEMPORAL_TLS_CERT", "", "path to the PEM client certificate (mTLS)")
	fs.str(&t.TLSKey, "temporal-tls-key", "TEMPORAL_TLS_KEY", "", "path to the PEM client key (mTLS)")
	fs.str(&t.TLSCA, "temporal-tls-ca", "TEMPORAL_TLS_CA", "", "path to PEM CA certificates verifying the server (default: system roots)")
	fs.str(&t.TLSServerName, "temporal-tls-server-name", "TEMPORAL_TLS_SERVER_NAME", "", "server name the Temporal certificate must carry")
	fs.secret(&t.APIKey, "temporal-api-key", "TEMPORAL_API_KEY", "Temporal API key (Temporal Cloud); implies TLS")
	fs.str(&t.Compression, "temporal-compression", "HOOKD_TEMPORAL_COMPRESSION", app.CompressionNone, "gRPC compression of the calls to Temporal: none (payloads are ciphertext, which gzip does not shrink) or gzip")
	fs.duration(&t.ConnectTimeout, "temporal-connect-timeout", "HOOKD_TEMPORAL_CONNECT_TIMEOUT", 30*time.Second, "how long to keep trying to reach Temporal at start")
	fs.secret(&c.DatabaseURL, "database-url", "HOOKD_DATABASE_URL", "PostgreSQL URL of the endpoint store (required; its database is created on first start if the user may)")
	fs.secret(&f.masterKey, "master-key", "HOOKD_MASTER_KEY", "base64 32-byte key encrypting signing secrets, the same in every process (required)")
	fs.offSwitch(&c.Payload.NoEventKeys, "event-keys", "HOOKD_EVENT_KEYS", "seal each event's body in Temporal with the event's own key, which an expunge destroys (on), or with the payload codec alone (off: an expunge cannot reach Temporal's copy)")
	fs.offSwitch(&c.Payload.Off, "payload-encryption", "HOOKD_PAYLOAD_ENCRYPTION", "encrypt payloads in Temporal (on) or write them in plaintext (off)")
	fs.secret(&f.payload.keys, "payload-keys", "HOOKD_PAYLOAD_KEYS", "comma-separated base64 32-byte keys encrypting payloads in Temporal, oldest first, the last encrypting; the same in every process (required unless --payload-encryption=off)")
	fs.str(&f.allowCIDRs, "allow-cidrs", "HOOKD_ALLOW_CIDRS", "", "comma-separated CIDRs deliveries may reach although private or loopback, over http too")
	fs.duration(&c.Retention, "retention", "HOOKD_RETENTION", namespace.DefaultRetention, "dedup window expected of the namespace retention (only checked)")
	fs.duration(&c.DeadLetterRetention, "dead-letter-retention", "HOOKD_DEAD_LETTER_RETENTION", activities.DefaultDeadLetterRetention, "how long a dead letter waits for a redrive")
	fs.str(&c.MetricsAddr, "metrics-addr", "HOOKD_METRICS_ADDR", "", "listen address serving only Prometheus /metrics, without an API key: keep it private (empty disables it)")
	metricsSeriesFlag(fs, &c.Observability.MaxEndpointSeries)
	profileFlag(fs, &f.pprofAddr)
	fs.duration(&c.ShutdownDelay, "shutdown-delay", "HOOKD_SHUTDOWN_DELAY", 0, "after SIGTERM, keep serving with /readyz failing this long before stopping")
	fs.duration(&c.ShutdownTimeout, "shutdown-timeout", "HOOKD_SHUTDOWN_TIMEOUT", 30*time.Second, "after SIGTERM, how long requests and in-flight attempts may take to finish")
	fs.level(&f.logLevel, "log-level", "HOOKD_LOG_LEVEL", slog.LevelInfo, "log level")
	fs.str(&f.logFormat, "log-format", "HOOKD_LOG_FORMAT", "json", "log format: json or text")
	httpUsage := "listen address of the HTTP API and its /healthz and /readyz probes (all interfaces by default, as a container needs; 127.0.0.1:8080 for loopback only)"
	if mode == "worker" {
		httpUsage = "listen address of the worker's /healthz and /readyz probes, on all interfaces by default (empty disables them)"
	}
	fs.str(&c.HTTPAddr, "http-addr", "HOOKD_HTTP_ADDR", ":8080", httpUsage)
	circuitFlags(fs, &c.Circuit)
	if mode != "api" {
		fs.integer(&c.MaxConcurrentAttempts, "max-concurrent-attempts", "HOOKD_MAX_CONCURRENT_ATTEMPTS", 256, "HTTP attempts one worker runs at once")
		fs.integer(&c.MaxAttemptsPerEndpoint, "max-attempts-per-endpoint", "HOOKD_MAX_ATTEMPTS_PER_ENDPOINT", 0, "HTTP attempts one worker runs at once for any one endpoint; more wait their turn without spending attempts (0: a quarter of --max-concurrent-attempts; -1: no bound)")
		fs.integer(&c.WorkflowCacheSize, "workflow-cache", "HOOKD_WORKFLOW_CACHE", worker.DefaultWorkflowCacheSize, "deliveries a worker keeps in memory between workflow tasks (bounds memory while many are parked)")
		fs.integer(&c.WorkflowTaskPollers, "workflow-task-pollers", "HOOKD_WORKFLOW_TASK_POLLERS", worker.DefaultWorkflowTaskPollers, "workflow-task polls a worker keeps open; too few leave delayed starts and timer wake-ups waiting for a poller beside a flood of new events")
		autoDisableFlag(fs, &c.AutoDisableAfter)
		egressProxyFlag(fs, &f.egressProxy)
	}
	if mode != "worker" {
		fs.secret(&f.apiKeys, "api-keys", "HOOKD_API_KEYS", "comma-separated API bearer tokens (at least one required)")
		limitFlags(fs, &c.Limits)
		defaultSigningFlag(fs, &c.DefaultSigning)
		requireEventTypesFlag(fs, &c.RequireEventTypes)
		fs.str(&c.PublicURL, "public-url", "HOOKD_PUBLIC_URL", "", "base URL of the API as browsers reach it (https://hooks.example.com), for portal sign-in links (default: the --http-addr URL)")
		portalFrameFlag(fs, &f.frameAncestors)
		fs.str(&f.trustedProxies, "trusted-proxies", "HOOKD_TRUSTED_PROXIES", "", "comma-separated CIDRs of load balancers whose X-Forwarded-For names the client failed authentications are throttled by")
		fs.str(&f.payload.corsOrigins, "codec-cors-origins", "HOOKD_CODEC_CORS_ORIGINS", "", "comma-separated browser origins (a Temporal Web UI's) allowed to call the codec server at /codec")
	}
	return fs
}

// parseServeFlags parses `hookd <mode>` flags and their environment into
// a checked configuration, as the command does; errors never repeat a
// secret.
func parseServeFlags(mode string, args []string) (app.ServeConfig, slog.Level, string, error) {
	var f serveFlags
	fs := newServeFlagSet(mode, &f)
	if err := fs.Parse(args); err != nil {
		return f.cfg, 0, "", usageError{err}
	}
	if fs.NArg() > 0 {
		return f.cfg, 0, "", usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if err := applyEnv(fs.FlagSet); err != nil {
		return f.cfg, 0, "", err
	}
	return f.check(mode)
}

// check turns the flags given into a configuration for mode.
func (f *serveFlags) check(mode string) (app.ServeConfig, slog.Level, string, error) {
	c := f.cfg
	c.API = mode != "worker"
	c.Worker = mode != "api"
	if err := checkCircuit(c.Circuit); err != nil {
		return c, 0, "", err
	}
	if c.Worker {
		if err := checkAutoDisable(c.AutoDisableAfter); err != nil {
			return c, 0, "", err
		}
	}
	var err error
	if f.masterKey != "" {
		if c.MasterKey, err = secretbox.ParseKey(f.masterKey); err != nil {
			return c, 0, "", usageError{fmt.Errorf("master key: %w", err)}
		}
	}
	if c.Payload.Keys, err = parsePayloadKeys(f.payload.keys); err != nil {
		return c, 0, "", err
	}
	c.Payload.CORSOrigins = splitList(f.payload.corsOrigins)
	c.APIKeys = splitList(f.apiKeys)
	if c.AllowCIDRs, err = parseCIDRs("allow-cidrs", f.allowCIDRs); err != nil {
		return c, 0, "", err
	}
	if c.EgressProxy, err = parseEgressProxy(f.egressProxy); err != nil {
		return c, 0, "", err
	}
	if c.TrustedProxies, err = parseCIDRs("trusted-proxies", f.trustedProxies); err != nil {
		return c, 0, "", err
	}
	if c.PortalFrameAncestors, err = portal.ParseFrameAncestors(f.frameAncestors); err != nil {
		return c, 0, "", usagef("portal-frame-ancestors: %w", err)
	}
	if f.logFormat != "json" && f.logFormat != "text" {
		return c, 0, "", usagef("log-format: want json or text")
	}
	// The required fields are app's rules; the flags only say where to set them.
	if err := c.Validate(); err != nil {
		return c, 0, "", usagef("%w (see hookd %s -h for the flags and their environment variables)", err, mode)
	}
	return c, f.logLevel, f.logFormat, nil
}

// parseCIDRs parses flag's comma-separated list of CIDRs or single
// addresses.
func parseCIDRs(flag, s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range splitList(s) {
		p, err := netip.ParsePrefix(item)
		if err != nil {
			a, aerr := netip.ParseAddr(item)
			if aerr != nil {
				return nil, usagef("%s: %q is neither a CIDR nor an address", flag, item)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// serveShort says what each stateless mode runs.
var serveShort = map[string]string{
	"worker": "run a stateless worker against a Temporal cluster and PostgreSQL",
	"api":    "run the stateless HTTP API against a Temporal cluster and PostgreSQL",
	"serve":  "run a worker and the API in one stateless process",
}

func serveCommand(e *clientEnv, mode string) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   mode,
		Short: serveShort[mode],
		Long: serveShort[mode] + `. Processes hold no state: run as many as
the load needs. Every flag also reads an environment variable, the Temporal
ones by the temporal CLI's TEMPORAL_* names.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, level, format, err := f.check(mode)
			if err != nil {
				return err
			}
			cfg.Version = e.version
			return runServe(cmd.Context(), mode, cfg, serveProcess{level, format, f.pprofAddr}, e.stdout, e.stderr)
		},
	}
	cmd.Flags().AddFlagSet(newServeFlagSet(mode, &f).FlagSet)
	return cmd
}

// serveProcess is what a stateless process sets up around the app: its
// log level and format, and where it serves its runtime profiles.
type serveProcess struct {
	logLevel  slog.Level
	logFormat string
	pprofAddr string
}

// runServe runs `hookd worker`, `hookd api` or `hookd serve` until ctx is
// done (SIGTERM or SIGINT), then shuts down gracefully.
func runServe(ctx context.Context, mode string, cfg app.ServeConfig, p serveProcess, stdout, stderr io.Writer) error {
	cfg.Logger = newServeLogger(stderr, p.logLevel, p.logFormat).With("process", mode)
	if _, err := app.ServeProfiles(ctx, p.pprofAddr, cfg.Logger); err != nil {
		return err
	}
	tp, stopTracing, err := envTracing(ctx, cfg.Version, cfg.Logger)
	if err != nil {
		return err
	}
	defer stopTracing()
	cfg.TracerProvider = tp
	if cfg.MetricsExporter, err = metrics.OTLPExporterFromEnv(ctx); err != nil {
		return err
	}
	s, err := app.StartServe(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "hookd %s is running on %s (version %s)\n", mode, orNone(s.HTTPURL), cfg.Version)
	err = s.Wait(ctx)
	cfg.Logger.Info("stopping")
	start := time.Now()
	s.Stop(context.Background())
	cfg.Logger.Info("stopped", "took", time.Since(start).Round(time.Millisecond))
	return err
}

func newServeLogger(w io.Writer, level slog.Level, format string) *slog.Logger {
	if format == "text" {
		return newLogger(w, level)
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// portalFrameFlag adds --portal-frame-ancestors, the origins that may
// show the consumer portal in a frame.
func portalFrameFlag(fs envFlags, v *string) {
	fs.str(v, "portal-frame-ancestors", "HOOKD_PORTAL_FRAME_ANCESTORS", "", "comma-separated origins (https://app.example.com) whose pages may embed the consumer portal in an iframe; its cookies become partitioned SameSite=None; Secure ones, which need https except on loopback (empty: no frame may show it)")
}
