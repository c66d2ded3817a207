// Package app wires hookd's parts into running processes: `hookd dev`
// (embedded Temporal and Web UI, SQLite endpoint store, worker and API in
// one process) and `hookd serve`, `worker` and `api` (stateless, against a
// Temporal cluster and PostgreSQL). One builder (process.build) assembles
// every mode from a spec of what it runs. Tests start the same wiring the
// binary runs.
package app

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/codec"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/embedded"
	"github.com/hookd/hookd/internal/namespace"
	"github.com/hookd/hookd/internal/portal"
	"github.com/hookd/hookd/internal/store/secretbox"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/store/sqlstore"
	"github.com/hookd/hookd/internal/tracing"
	"github.com/hookd/hookd/internal/worker"
	"github.com/hookd/hookd/signing"
)

// DevConfig configures `hookd dev`. DataDir, HTTPAddr and TemporalAddr are
// required; the rest have defaults.
type DevConfig struct {
	DataDir      string
	HTTPAddr     string // API; port 0 picks a free one
	UIAddr       string // Web UI; empty disables it
	TemporalAddr string // embedded frontend gRPC
	Namespace    string // default "default"
	// MetricsAddr serves /metrics alone, without credentials, for a
	// scraper; empty disables it. /metrics on HTTPAddr always needs the
	// API key.
	MetricsAddr string
	// APIKey is the bearer token; empty means load or create one in DataDir.
	APIKey string
	// Retention is the namespace retention, hence the dedup window.
	Retention time.Duration
	// DeadLetterRetention bounds how long dead letters wait for a redrive.
	DeadLetterRetention time.Duration
	// Circuit tunes endpoints' circuit breakers (zero: the default policy).
	Circuit circuit.Policy
	// AutoDisableAfter disables an endpoint whose attempts kept failing
	// with no success for this long; zero never does.
	AutoDisableAfter time.Duration
	// Observability tunes health figures and metrics.
	Observability ObservabilityConfig
	// Limits are the API's quotas per tenant, endpoint and credential
	// (zero: api's defaults).
	Limits api.Limits
	// DefaultSigning is the signing profile of endpoints created without
	// one (normalized); the zero value is Standard Webhooks.
	DefaultSigning signing.Profile
	// RequireEventTypes refuses posted events whose type the event-type
	// catalog does not have.
	RequireEventTypes bool
	// EgressProxy, when set, is the forward proxy every attempt and
	// token request leaves through (activities.ParseEgressProxy).
	EgressProxy *url.URL
	// WorkflowCacheSize bounds the deliveries the worker keeps in memory
	// between workflow tasks (zero: worker.DefaultWorkflowCacheSize).
	WorkflowCacheSize int
	// PublicURL is the API's base URL in portal sign-in links (default:
	// the API's listen URL).
	PublicURL string
	// PortalFrameAncestors are the origins that may frame the consumer
	// portal (portal.ParseFrameAncestors); none keeps it out of frames.
	PortalFrameAncestors []string
	// AuthFailureLimit is how many failed authentications per minute a
	// client address may make before it is answered 429 (zero:
	// api.DefaultAuthFailureLimit).
	AuthFailureLimit int
	Version          string
	Logger           *slog.Logger
	// TemporalLogLevel filters the embedded server's own logs.
	TemporalLogLevel slog.Level
	// TemporalPostgres, for StartTemporalOnly only, persists the embedded
	// Temporal server in PostgreSQL instead of SQLite files.
	TemporalPostgres *embedded.Postgres
	// TemporalShards is the embedded server's history shard count when its
	// persistence is created (embedded.Options.HistoryShards; zero: its
	// persistence's default).
	TemporalShards int
	// TemporalAllVisibilityIndexes keeps every index of Temporal's
	// visibility table (embedded.Tuning.AllVisibilityIndexes): by default
	// the embedded server drops those no hookd or Web UI query uses.
	TemporalAllVisibilityIndexes bool
	// TemporalStockExecutionStore runs the embedded server's execution
	// store as Temporal ships it (embedded.Tuning.StockExecutionStore).
	TemporalStockExecutionStore bool
	// TemporalStockVisibilityColumns keeps, on PostgreSQL, the visibility
	// table's generated columns as Temporal ships them
	// (embedded.Tuning.StockVisibilityColumns).
	TemporalStockVisibilityColumns bool
	// Payload is how payloads are encrypted in Temporal; by default with
	// the keys in <DataDir>/payload-keys, created on first start.
	Payload PayloadConfig
	// TracerProvider receives hookd's spans (tracing.FromEnv builds it
	// from the OTEL_* environment); nil is tracing off: no interceptor, no
	// span, no trace context sent. The caller shuts it down after Stop.
	TracerProvider trace.TracerProvider
	// MetricsExporter, when set, receives every metric /metrics serves,
	// with the same names and labels, over OTLP
	// (metrics.OTLPExporterFromEnv builds it); Stop flushes and closes it.
	MetricsExporter sdkmetric.Exporter
}

// Dev is a running `hookd dev`.
type Dev struct {
	APIURL string
	APIKey string
	// MetricsURL is where MetricsAddr listens ("" if not).
	MetricsURL string
	UIURL      string
	Client     client.Client
	Temporal   *embedded.Server
	// API is the HTTP API's server, for tests that walk its routes.
	API *api.Server
	// Portal is the consumer portal, for tests that walk its routes.
	Portal *portal.Portal

	cfg    DevConfig
	tuning Tuning
	tracer *tracing.Tracer // nil: tracing off
	proc   process
	guard  *embedded.DataDirGuard
	http   httpServers
}

// StartDev starts everything and returns once the API is serving.
func StartDev(ctx context.Context, cfg DevConfig) (*Dev, error) {
	return StartDevTuned(ctx, cfg, Tuning{})
}

// Validate checks the required fields and fills in defaults, as
// ServeConfig.Validate does for the stateless modes. StartDev calls it.
func (cfg *DevConfig) Validate() error {
	switch {
	case cfg.DataDir == "":
		return errors.New("missing data dir")
	case cfg.HTTPAddr == "":
		return errors.New("missing HTTP address")
	case cfg.TemporalAddr == "":
		return errors.New("missing Temporal address")
	}
	cfg.Namespace = cmp.Or(cfg.Namespace, "default")
	cfg.Retention = cmp.Or(cfg.Retention, namespace.DefaultRetention)
	if err := checkWindows(cfg.Retention, cfg.DeadLetterRetention); err != nil {
		return err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return nil
}

// StartDevTuned is StartDev with the benchmark's and the tests' levers.
func StartDevTuned(ctx context.Context, cfg DevConfig, tuning Tuning) (_ *Dev, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tracer, logger := withTracing(cfg.TracerProvider, cfg.Logger)
	cfg.Logger = logger
	// Before the embedded server: its system workers size the shared cache.
	worker.SizeWorkflowCache(cfg.WorkflowCacheSize)
	d := &Dev{cfg: cfg, tuning: tuning, tracer: tracer}
	// Take the API port first, so a port in use fails before anything starts.
	ln, apiURL, err := listen(cfg.HTTPAddr)
	if err != nil {
		return nil, err
	}
	d.APIURL = apiURL
	metricsLn, metricsURL, err := listen(cfg.MetricsAddr)
	if err != nil {
		closeListeners(ln)
		return nil, err
	}
	d.MetricsURL = metricsURL
	defer func() {
		if err != nil {
			closeListeners(ln, metricsLn)
			d.Stop(context.Background())
		}
	}()
	if err := embedded.SecureDataDir(cfg.DataDir, cfg.Logger); err != nil {
		return nil, err
	}
	if d.APIKey, err = loadOrCreate(filepath.Join(cfg.DataDir, "api-key"), cfg.APIKey, authz.APIKeyPrefix); err != nil {
		return nil, err
	}
	if d.cfg.Payload, err = loadDevPayloadKeys(cfg.DataDir, cfg.Payload); err != nil {
		return nil, err
	}
	temporalTuning := d.tuning.Temporal
	temporalTuning.AllVisibilityIndexes = temporalTuning.AllVisibilityIndexes || cfg.TemporalAllVisibilityIndexes
	temporalTuning.StockExecutionStore = temporalTuning.StockExecutionStore || cfg.TemporalStockExecutionStore
	d.Temporal, err = embedded.Start(embedded.Options{
		DataDir: cfg.DataDir, FrontendAddr: cfg.TemporalAddr, Namespace: cfg.Namespace,
		UIAddr: cfg.UIAddr, Logger: cfg.Logger, LogLevel: cfg.TemporalLogLevel,
		SearchAttributes: delivery.SearchAttributes(), Tuning: temporalTuning,
		CodecEndpoint: d.APIURL + codec.Path, HistoryShards: cfg.TemporalShards,
	})
	if err != nil {
		return nil, err
	}
	if cfg.UIAddr != "" {
		d.UIURL = "http://" + cfg.UIAddr
	}
	if err := d.proc.build(ctx, d.spec()); err != nil {
		return nil, err
	}
	d.Client, d.API, d.Portal = d.proc.client, d.proc.api, d.proc.portal
	if cfg.EgressProxy != nil {
		cfg.Logger.Info("deliveries leave through the egress proxy", "egress_proxy", activities.MaskedProxy(cfg.EgressProxy))
	}
	d.http.serve(ln, d.proc.handler)
	d.http.serve(metricsLn, d.proc.obs.scrapeHandler(d.API))
	return d, nil
}

// spec is what `hookd dev` builds: the embedded server's client, the
// SQLite store in the data dir, a worker and the API.
func (d *Dev) spec() spec {
	cfg := d.cfg
	return spec{
		namespace: cfg.Namespace, retention: cfg.Retention, setRetention: true, payload: cfg.Payload,
		observability: cfg.Observability, metricsExporter: cfg.MetricsExporter, version: cfg.Version,
		tracer: d.tracer, log: cfg.Logger,
		dial: d.dial, openStore: d.openStore,
		worker: &workerSpec{activities: activities.Config{
			Egress:              activities.Egress{Guard: d.tuning.guard(), Proxy: cfg.EgressProxy},
			Version:             cfg.Version,
			DeadLetterRetention: cfg.DeadLetterRetention,
			DedupWindow:         cfg.Retention,
			Circuit:             cfg.Circuit,
			AutoDisableAfter:    cfg.AutoDisableAfter,
			DisabledPoll:        d.tuning.DisabledPoll,
		}, options: worker.Options{WorkflowTaskPollers: d.tuning.WorkflowTaskPollers}},
		api: &apiSpec{
			config: api.Config{
				APIKeys:          []string{d.APIKey},
				EagerStart:       true,
				AuthFailureLimit: cfg.AuthFailureLimit,
				PublicURL:        cmp.Or(cfg.PublicURL, d.APIURL),
				RecoverImmediate: d.tuning.RecoverImmediate,
				Limits:           cfg.Limits,
				DefaultSigning:   cfg.DefaultSigning,

				RequireEventTypes: cfg.RequireEventTypes,
				Circuit:           cfg.Circuit,
			},
			frameAncestors: cfg.PortalFrameAncestors,
			wrap: func(next http.Handler, h *api.Server) http.Handler {
				return withDataDirGuard(d.proc.obs.withMetrics(next, h), d.guard)
			},
			trustedOrigins: loopbackUIOrigins(cfg.UIAddr, strings.TrimPrefix(d.APIURL, "http://")),
		},
	}
}

// dial connects to the embedded server.
func (d *Dev) dial(ctx context.Context, metrics client.MetricsHandler, c *codec.Codec) (client.Client, error) {
	opts := client.Options{
		HostPort:       d.cfg.TemporalAddr,
		Namespace:      d.cfg.Namespace,
		Logger:         sdkLogger(d.cfg.Logger),
		MetricsHandler: metrics,
		// The server is in this process, reached over loopback: no gzip,
		// which would cost CPU on every call and save no bandwidth that
		// matters (docs/performance.md).
		ConnectionOptions: client.ConnectionOptions{GrpcCompression: &client.GrpcCompressionNone{}},
	}
	c.Apply(&opts)
	if err := applyTracing(d.tracer, &opts); err != nil {
		return nil, err
	}
	cl, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("connect to temporal: %w", err)
	}
	return cl, nil
}

// openStore opens the SQLite store in the data dir with the master key
// kept there (created on first start), and guards the data dir.
func (d *Dev) openStore(ctx context.Context) (*sqlstore.Store, []byte, error) {
	dir, log := d.cfg.DataDir, d.cfg.Logger
	key, err := secretbox.LoadOrCreateKeyFile(filepath.Join(dir, "master.key"))
	if err != nil {
		return nil, nil, fmt.Errorf("master key: %w", err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(dir, "hookd.db"), key)
	if err != nil {
		return nil, nil, err
	}
	// hookd.db was just created with the umask's mode.
	if err := embedded.SecureDataDir(dir, log); err != nil {
		return st, nil, err
	}
	if d.guard, err = embedded.GuardDataDir(dir, guardedFiles, log); err != nil {
		return st, nil, err
	}
	return st, key, nil
}

// DataConverter is the data converter of the Dev's Temporal client (the
// payload codec applied), for reading payloads from raw histories.
func (d *Dev) DataConverter() converter.DataConverter { return d.proc.codec.DataConverter() }

// StoreWrites returns how many rows the store has written since it
// opened (sqlstore.Store.WrittenRows), for the benchmark.
func (d *Dev) StoreWrites(ctx context.Context) (int64, error) { return d.proc.store.WrittenRows(ctx) }

// Wait blocks until ctx is done or the API server fails.
func (d *Dev) Wait(ctx context.Context) error { return d.http.wait(ctx) }

// Stop shuts down the API (finishing requests in flight), the worker, the
// background work, the client and the store (process.stop), and the
// Temporal server, in that order.
func (d *Dev) Stop(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := d.http.stop(ctx); err != nil {
		d.cfg.Logger.Warn("http shutdown", "error", err)
	}
	// The guard answers only HTTP requests, which have stopped.
	d.guard.Close()
	d.proc.stop(ctx)
	if d.Temporal != nil {
		d.Temporal.Stop()
	}
}

// loadOrCreate returns given if set, else the value kept in path, else a
// new random value (prefix + 32 random bytes) saved there with mode 0600.
func loadOrCreate(path, given, prefix string) (string, error) {
	if given != "" {
		return given, nil
	}
	b, err := os.ReadFile(path)
	if err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	v := prefix + base64.RawURLEncoding.EncodeToString(raw)
	if err := os.WriteFile(path, []byte(v+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return v, nil
}
