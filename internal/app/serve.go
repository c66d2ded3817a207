package app

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"sync/atomic"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/codec"
	"github.com/hookd/hookd/internal/namespace"
	"github.com/hookd/hookd/internal/store/postgres"
	"github.com/hookd/hookd/internal/store/sqlstore"
	"github.com/hookd/hookd/internal/tracing"

	hookdworker "github.com/hookd/hookd/internal/worker"
	"github.com/hookd/hookd/signing"
)

// ServeConfig configures `hookd worker`, `hookd api` and `hookd serve`:
// stateless processes against an external Temporal cluster and a
// PostgreSQL endpoint store, in production mode (API keys required, no
// loopback or private destinations unless allow-listed, https only).
type ServeConfig struct {
	// API and Worker say what this process runs; at least one.
	API, Worker bool
	Temporal    TemporalConfig
	// DatabaseURL is the PostgreSQL endpoint store. Required.
	DatabaseURL string
	// MasterKey is the 32-byte key that encrypts signing secrets. Required,
	// the same in every process.
	MasterKey []byte
	// Payload is how payloads are encrypted in Temporal: keys required
	// unless off, the same in every process.
	Payload PayloadConfig
	// APIKeys are the API's bearer tokens; the API needs at least one.
	APIKeys []string
	// HTTPAddr serves the API (with the probes) or, in a worker alone, just
	// the probes; empty disables the worker's probe server.
	HTTPAddr string
	// MetricsAddr serves Prometheus metrics at /metrics; empty disables it.
	MetricsAddr string
	// AllowCIDRs are destinations reachable although private or loopback,
	// and reachable over plain http.
	AllowCIDRs []netip.Prefix
	// EgressProxy, when set, is the forward proxy every attempt and
	// token request leaves through (activities.ParseEgressProxy); the
	// guard still judges each destination first.
	EgressProxy *url.URL
	// PublicURL is the API's base URL as browsers reach it, for portal
	// sign-in links (default: the HTTP listen URL, which behind a load
	// balancer is not it).
	PublicURL string
	// PortalFrameAncestors are the origins that may frame the consumer
	// portal (portal.ParseFrameAncestors); none keeps it out of frames.
	PortalFrameAncestors []string
	// TrustedProxies are load balancers whose X-Forwarded-For names the
	// client that failed authentications are counted by.
	TrustedProxies []netip.Prefix
	// AuthFailureLimit is how many failed authentications per minute a
	// client address may make before it is answered 429 (zero:
	// api.DefaultAuthFailureLimit).
	AuthFailureLimit int
	// Retention is the dedup window hookd expects of the namespace; a
	// shorter retention is warned about, never changed.
	Retention time.Duration
	// DeadLetterRetention bounds how long dead letters wait for a redrive.
	DeadLetterRetention time.Duration
	// Circuit tunes endpoints' circuit breakers (zero: the default policy).
	Circuit circuit.Policy
	// AutoDisableAfter disables an endpoint whose attempts kept failing
	// with no success for this long; zero never does.
	AutoDisableAfter time.Duration
	// Limits are the API's quotas per tenant, endpoint and credential
	// (zero: api's defaults).
	Limits api.Limits
	// DefaultSigning is the signing profile of endpoints created without
	// one (normalized); the zero value is Standard Webhooks.
	DefaultSigning signing.Profile
	// RequireEventTypes refuses posted events whose type the event-type
	// catalog does not have.
	RequireEventTypes bool
	// Observability tunes health figures and metrics.
	Observability ObservabilityConfig
	// MaxConcurrentAttempts bounds one worker's HTTP attempts in flight.
	MaxConcurrentAttempts int
	// MaxAttemptsPerEndpoint bounds one endpoint's attempts in flight in
	// one worker (zero: a quarter of MaxConcurrentAttempts; negative: no
	// bound).
	MaxAttemptsPerEndpoint int
	// WorkflowCacheSize bounds the deliveries a worker keeps in memory
	// between workflow tasks (zero: worker.DefaultWorkflowCacheSize).
	WorkflowCacheSize int
	// WorkflowTaskPollers is the workflow-task polls a worker keeps open
	// (zero: worker.DefaultWorkflowTaskPollers).
	WorkflowTaskPollers int
	// ShutdownDelay keeps serving, with /readyz failing, after a stop is
	// asked, so load balancers stop routing first.
	ShutdownDelay time.Duration
	// ShutdownTimeout bounds finishing API requests and, separately,
	// in-flight attempts; attempts still running then are handed back to
	// Temporal, which retries them. Zero means 30s.
	ShutdownTimeout time.Duration
	Version         string
	Logger          *slog.Logger
	// TracerProvider receives hookd's spans (tracing.FromEnv builds it
	// from the OTEL_* environment); nil is tracing off: no interceptor, no
	// span, no trace context sent. The caller shuts it down after Stop.
	TracerProvider trace.TracerProvider
	// MetricsExporter, when set, receives every metric /metrics serves,
	// with the same names and labels, over OTLP
	// (metrics.OTLPExporterFromEnv builds it); Stop flushes and closes it.
	MetricsExporter sdkmetric.Exporter
}

// Serve is a running `hookd worker`, `hookd api` or `hookd serve`.
type Serve struct {
	// HTTPURL and MetricsURL are where the servers listen ("" if not).
	HTTPURL, MetricsURL string
	Client              client.Client

	cfg      ServeConfig
	tracer   *tracing.Tracer // nil: tracing off
	proc     process
	http     httpServers
	draining atomic.Bool
}

// Validate checks the required fields, the one place these rules live,
// and fills in defaults. StartServe calls it; a command may call it first
// to refuse its flags before starting anything.
func (cfg *ServeConfig) Validate() error {
	switch {
	case !cfg.API && !cfg.Worker:
		return errors.New("nothing to run: neither API nor worker")
	case cfg.DatabaseURL == "":
		return errors.New("missing database URL (PostgreSQL endpoint store)")
	case len(cfg.MasterKey) == 0:
		return errors.New("missing master key (32 bytes encrypting signing secrets, the same in every process)")
	case !cfg.Payload.Off && len(cfg.Payload.Keys) == 0:
		return errNoPayloadKey
	case cfg.API && len(cfg.APIKeys) == 0:
		return errors.New("missing API key: the API refuses to run without one")
	case cfg.API && cfg.HTTPAddr == "":
		return errors.New("missing HTTP address for the API")
	}
	cfg.Retention = cmp.Or(cfg.Retention, namespace.DefaultRetention)
	if err := checkWindows(cfg.Retention, cfg.DeadLetterRetention); err != nil {
		return err
	}
	cfg.ShutdownTimeout = cmp.Or(cfg.ShutdownTimeout, 30*time.Second)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return nil
}

// StartServe connects to Temporal and the store, prepares the namespace
// (search attributes; retention is only checked), and starts the worker
// and the HTTP servers. It returns once everything is serving.
func StartServe(ctx context.Context, cfg ServeConfig) (_ *Serve, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	hookdworker.SizeWorkflowCache(cfg.WorkflowCacheSize)
	var tracer *tracing.Tracer
	tracer, cfg.Logger = withTracing(cfg.TracerProvider, cfg.Logger)
	s := &Serve{cfg: cfg, tracer: tracer}
	defer func() {
		if err != nil {
			s.Stop(context.Background())
		}
	}()
	log := cfg.Logger
	// Take the ports first, so a port in use fails before connecting.
	apiLn, apiURL, err := listen(cfg.HTTPAddr)
	if err != nil {
		return nil, err
	}
	metricsLn, metricsURL, err := listen(cfg.MetricsAddr)
	defer func() {
		if err != nil {
			closeListeners(apiLn, metricsLn)
		}
	}()
	if err != nil {
		return nil, err
	}
	s.HTTPURL, s.MetricsURL = apiURL, metricsURL
	if err = s.proc.build(ctx, s.spec(apiURL)); err != nil {
		return nil, err
	}
	s.Client = s.proc.client
	handler := s.proc.handler
	if handler == nil {
		handler = s.probes(nil)
	}
	s.http.serve(apiLn, handler)
	s.http.serve(metricsLn, s.proc.obs.scrapeHandler(s.proc.api))
	log.Info("hookd started", "api", cfg.API, "worker", cfg.Worker, "http", s.HTTPURL, "metrics", s.MetricsURL,
		"temporal", cfg.Temporal.Address, "namespace", cfg.Temporal.Namespace, "allow_cidrs", len(cfg.AllowCIDRs),
		"egress_proxy", activities.MaskedProxy(cfg.EgressProxy))
	return s, nil
}

// spec is what a stateless process builds: a client of the Temporal
// cluster, the PostgreSQL store, and the worker or the API or both, the
// API serving at apiURL.
func (s *Serve) spec(apiURL string) spec {
	cfg := s.cfg
	sp := spec{
		namespace: cfg.Temporal.Namespace, retention: cfg.Retention, payload: cfg.Payload,
		observability: cfg.Observability, metricsExporter: cfg.MetricsExporter, version: cfg.Version,
		tracer: s.tracer, log: cfg.Logger,
		dial: func(ctx context.Context, metrics client.MetricsHandler, c *codec.Codec) (client.Client, error) {
			tc := cfg.Temporal
			tc.Metrics, tc.Codec, tc.tracer = metrics, c, s.tracer
			return DialTemporal(ctx, tc, cfg.Logger)
		},
		openStore: func(ctx context.Context) (*sqlstore.Store, []byte, error) {
			st, err := postgres.Open(ctx, cfg.DatabaseURL, cfg.MasterKey)
			return st, cfg.MasterKey, err
		},
	}
	if cfg.API {
		sp.api = &apiSpec{
			config: api.Config{
				APIKeys: cfg.APIKeys,
				// Eager start hands deliveries to the worker in this process.
				EagerStart: cfg.Worker,
				URLPolicy:  URLPolicy(cfg.AllowCIDRs, nil),

				AuthFailureLimit: cfg.AuthFailureLimit,
				TrustedProxies:   cfg.TrustedProxies,
				PublicURL:        cmp.Or(cfg.PublicURL, apiURL),
				Limits:           cfg.Limits,
				DefaultSigning:   cfg.DefaultSigning,

				RequireEventTypes: cfg.RequireEventTypes,
				Circuit:           cfg.Circuit,
			},
			frameAncestors: cfg.PortalFrameAncestors,
			wrap:           func(next http.Handler, _ *api.Server) http.Handler { return s.probes(next) },
		}
	}
	if cfg.Worker {
		// The worker's stop timeout lets a stop finish in-flight attempts.
		sp.worker = &workerSpec{
			activities: activities.Config{
				Egress:              activities.Egress{Guard: activities.Guard{Allow: cfg.AllowCIDRs}, Proxy: cfg.EgressProxy},
				Version:             cfg.Version,
				DeadLetterRetention: cfg.DeadLetterRetention,
				DedupWindow:         cfg.Retention,
				Circuit:             cfg.Circuit,
				AutoDisableAfter:    cfg.AutoDisableAfter,
			},
			options: hookdworker.Options{
				MaxConcurrentAttempts:  cfg.MaxConcurrentAttempts,
				MaxAttemptsPerEndpoint: cfg.MaxAttemptsPerEndpoint,
				StopTimeout:            cfg.ShutdownTimeout,
				WorkflowTaskPollers:    cfg.WorkflowTaskPollers,
			},
		}
	}
	return sp
}

// Wait blocks until ctx is done or a server fails.
func (s *Serve) Wait(ctx context.Context) error { return s.http.wait(ctx) }

// Stop shuts down gracefully: /readyz fails at once; after ShutdownDelay
// the HTTP servers stop accepting and finish requests in flight; then the
// worker stops polling and lets in-flight attempts finish (up to
// ShutdownTimeout, after which Temporal retries them elsewhere); last the
// client and the store close.
func (s *Serve) Stop(ctx context.Context) {
	s.draining.Store(true)
	log := s.cfg.Logger
	if len(s.http.servers) > 0 && s.cfg.ShutdownDelay > 0 {
		log.Info("draining: readiness fails, still serving", "for", s.cfg.ShutdownDelay)
		time.Sleep(s.cfg.ShutdownDelay)
	}
	shutdownCtx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownTimeout)
	defer cancel()
	if err := s.http.stop(shutdownCtx); err != nil {
		log.Warn("http shutdown", "error", err)
	}
	s.proc.stop(shutdownCtx)
}
