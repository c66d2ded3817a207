package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/codec"
	"github.com/hookd/hookd/internal/namespace"
	"github.com/hookd/hookd/internal/portal"
	"github.com/hookd/hookd/internal/store/sqlstore"
	"github.com/hookd/hookd/internal/tracing"
	"github.com/hookd/hookd/internal/worker"
)

// process is one hookd process's components, whatever its mode: the
// Temporal client, the endpoint store, the background work (parts), and
// the worker and the API when the mode runs them. build assembles them
// from a spec, the one builder of `hookd dev`, `serve`, `worker` and
// `api`; stop takes them down in reverse.
type process struct {
	client client.Client
	codec  *codec.Codec
	store  *sqlstore.Store
	obs    *observability
	parts  parts
	worker sdkworker.Worker
	api    *api.Server
	portal *portal.Portal
	// handler serves the API, the portal and the codec server; nil
	// without the API.
	handler http.Handler
	log     *slog.Logger
}

// spec is what build assembles: the settings every mode shares, where
// the mode's Temporal client and store come from, and the worker and the
// API if it runs them.
type spec struct {
	namespace string
	// retention is the namespace retention hookd relies on (the dedup
	// window); setRetention sets it on the namespace (hookd dev) where
	// otherwise it is only checked, an operator owning it.
	retention       time.Duration
	setRetention    bool
	payload         PayloadConfig
	observability   ObservabilityConfig
	metricsExporter sdkmetric.Exporter
	version         string
	tracer          *tracing.Tracer // nil: tracing off
	log             *slog.Logger

	// dial connects to Temporal with the process's SDK metrics, payload
	// codec and tracing.
	dial func(ctx context.Context, metrics client.MetricsHandler, c *codec.Codec) (client.Client, error)
	// openStore opens the endpoint store; key is its master key, which
	// also signs the API's cursors.
	openStore func(ctx context.Context) (st *sqlstore.Store, key []byte, err error)

	worker *workerSpec // nil: no worker
	api    *apiSpec    // nil: no API
}

// workerSpec is a worker's settings.
type workerSpec struct {
	// activities are the activities' settings; build adds the store,
	// the client, the logger and the hooks.
	activities activities.Config
	options    worker.Options
}

// apiSpec is the API's settings.
type apiSpec struct {
	// config is the API's settings; build adds the client, the
	// namespace, the store, the logger, the figures, the data converter,
	// the cursor secret, the version and the tracer.
	config         api.Config
	frameAncestors []string
	// wrap puts the mode's own routes (probes, data-dir guard, /metrics)
	// in front of the API and the portal, inside the codec server.
	wrap func(next http.Handler, h *api.Server) http.Handler
	// trustedOrigins may call the codec server without the API key
	// (codecServerOptions).
	trustedOrigins []string
}

// build assembles the process of sp: observability, payload codec,
// Temporal client and namespace, store, background work, then the API and
// the worker. On an error what was built stays in p for stop.
func (p *process) build(ctx context.Context, sp spec) error {
	p.log = sp.log
	p.obs = newObservability(sp.observability, sp.log)
	p.obs.otlp, p.obs.version = sp.metricsExporter, sp.version
	var err error
	if p.codec, err = newPayloadCodec(sp.payload, sp.namespace); err != nil {
		return err
	}
	if p.client, err = sp.dial(ctx, p.obs.SDKMetrics(), p.codec); err != nil {
		return err
	}
	if err := namespace.Ensure(ctx, p.client, sp.namespace, sp.retention, sp.setRetention, sp.log); err != nil {
		return err
	}
	if err := p.codec.CheckNamespace(ctx, p.client.WorkflowService(), sp.log); err != nil {
		return err
	}
	var key []byte
	if p.store, key, err = sp.openStore(ctx); err != nil {
		return err
	}
	if p.parts, err = startParts(p.store, p.client, p.obs, sp.tracer, sp.payload.NoEventKeys, sp.log); err != nil {
		return err
	}
	p.parts.startPruner(sp.retention)
	if sp.api != nil {
		if err := p.buildAPI(sp, key); err != nil {
			return err
		}
	}
	if sp.worker != nil {
		return p.startWorker(*sp.worker)
	}
	return nil
}

// buildAPI builds the API server, the portal and the codec server around
// them.
func (p *process) buildAPI(sp spec, cursorSecret []byte) error {
	cfg := sp.api.config
	cfg.Temporal, cfg.Namespace, cfg.Store, cfg.Hours = p.client, sp.namespace, p.store, p.store
	cfg.Logger, cfg.NoEventKeys, cfg.Version, cfg.Tracer = sp.log, sp.payload.NoEventKeys, sp.version, sp.tracer
	cfg.Stats, cfg.Metrics, cfg.DataConverter = p.obs.Stats, p.obs.metrics, p.codec.DataConverter()
	cfg.CursorSecret = cursorSecret
	h, err := api.New(cfg)
	if err != nil {
		return err
	}
	p.api = h
	withUI, pt, err := withPortal(h, h, p.store, sp.version, sp.api.frameAncestors, sp.log)
	if err != nil {
		return err
	}
	p.portal = pt
	p.handler, err = withCodecServer(sp.api.wrap(withUI, h), codecServerOptions{
		payload: sp.payload, namespace: sp.namespace, requireKey: h.RequireAPIKey, eventKeys: storeEventKeys(p.store),
		trustedOrigins: sp.api.trustedOrigins,
	})
	return err
}

// startWorker starts the Temporal worker on the process's activities.
func (p *process) startWorker(ws workerSpec) error {
	acts, err := p.parts.activities(ws.activities)
	if err != nil {
		return err
	}
	p.worker = worker.New(p.client, acts, ws.options)
	if err := p.worker.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	return nil
}

// stop stops the worker (letting in-flight attempts finish, up to its
// stop timeout), then the background work (at most until ctx is done),
// and closes the client and the store. Call it once the HTTP servers
// stopped; a process partly built stops what it has.
func (p *process) stop(ctx context.Context) {
	if p.log == nil {
		p.log = slog.Default()
	}
	if p.worker != nil {
		start := time.Now()
		p.worker.Stop()
		p.log.Info("worker stopped", "took", time.Since(start).Round(time.Millisecond))
	}
	if err := p.parts.stop(ctx); err != nil {
		p.log.Warn("stop background work", "error", err)
	}
	if p.client != nil {
		p.client.Close()
	}
	if p.store != nil {
		if err := p.store.Close(); err != nil {
			p.log.Warn("close store", "error", err)
		}
	}
}
