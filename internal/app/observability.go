package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/lifecycle"
	"github.com/hookd/hookd/internal/metrics"
	"github.com/hookd/hookd/internal/stats"
	"github.com/hookd/hookd/internal/store/sqlstore"
	"github.com/hookd/hookd/internal/tracing"
	"github.com/hookd/hookd/internal/visibility"
)

// ObservabilityConfig tunes health figures, alerts and metrics; the zero
// value is the default.
type ObservabilityConfig struct {
	// NoEndpointLabels drops endpoint_id from the metrics (many endpoints).
	NoEndpointLabels bool
	// MaxEndpointSeries bounds the endpoints labelled one by one
	// (metrics.Config.MaxEndpointSeries; zero: the default, 100).
	MaxEndpointSeries int
	// FlushEvery is how often attempt figures are written (default 5s).
	FlushEvery time.Duration
	// RefreshEvery is how often the visibility and circuit gauges are read
	// (default 30s).
	RefreshEvery time.Duration
}

// observability is a process's health figures, success-rate alerts and
// Prometheus metrics. It is made before the Temporal client (whose SDK
// metrics it takes) and started once the store and client exist.
type observability struct {
	cfg     ObservabilityConfig
	log     *slog.Logger
	metrics *metrics.Metrics
	stats   *stats.Aggregator
	// otlp, when set, receives the metrics over OTLP too, described as
	// hookd at version.
	otlp    sdkmetric.Exporter
	version string
}

// newObservability returns the metrics registry; SDKMetrics goes into the
// Temporal client's options.
func newObservability(cfg ObservabilityConfig, logger *slog.Logger) *observability {
	return &observability{
		cfg:     cfg,
		log:     logger,
		metrics: metrics.New(metrics.Config{NoEndpointLabels: cfg.NoEndpointLabels, MaxEndpointSeries: cfg.MaxEndpointSeries}),
	}
}

// start starts, in bg, the attempt-figure flusher (which raises the
// success-rate alert into the store's outbox) and the periodic gauges
// read from vis and the store; stopping bg flushes the last figures.
func (o *observability) start(bg *lifecycle.Group, st *sqlstore.Store, vis visibility.Reader) error {
	cfg := stats.Config{Store: st, Logger: o.log, FlushEvery: o.cfg.FlushEvery}
	agg, err := stats.New(cfg)
	if err != nil {
		return fmt.Errorf("start stats: %w", err)
	}
	o.stats = agg
	bg.Go("attempt figures", agg.Run)
	if o.otlp != nil {
		if err := o.exportOTLP(bg); err != nil {
			return err
		}
	}
	bg.Go("metrics refresh", func(ctx context.Context) {
		o.metrics.RunRefresh(ctx, metrics.Sources{Temporal: vis, Circuits: st}, o.cfg.RefreshEvery, o.log)
	})
	return nil
}

// exportOTLP pushes the metrics to o.otlp until bg stops, then once more.
func (o *observability) exportOTLP(bg *lifecycle.Group) error {
	res, err := tracing.Resource(context.Background(), o.version)
	if err != nil {
		return err
	}
	mp := o.metrics.ExportOTLP(o.otlp, res)
	o.log.Info("metrics on: exporting over OTLP too")
	bg.Go("otlp metrics", func(ctx context.Context) {
		<-ctx.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := mp.Shutdown(ctx); err != nil {
			o.log.Warn("flush OTLP metrics", "error", err)
		}
	})
	return nil
}

// SDKMetrics is the Temporal SDK's metrics handler: client.Options.MetricsHandler.
func (o *observability) SDKMetrics() client.MetricsHandler { return o.metrics.SDKHandler() }

// Observe is activities.Config.Observe: every attempt made feeds the
// figures and the metrics, in memory.
func (o *observability) Observe(endpointID string, at delivery.Attempt) {
	o.metrics.Observe(endpointID, at)
	if o.stats != nil {
		o.stats.Observe(endpointID, at)
	}
}

// Stats is api.Config.Stats: an endpoint's success rate and latencies
// over the last hour and day.
func (o *observability) Stats(ctx context.Context, endpointID string) (stats.Figures, error) {
	if o.stats == nil {
		return stats.Figures{}, errors.New("stats not started")
	}
	return o.stats.Figures(ctx, endpointID)
}

// MetricsHandler serves /metrics.
func (o *observability) MetricsHandler() http.Handler { return o.metrics.Handler() }

// withMetrics serves GET /metrics beside next, on the API's own listener:
// there it needs the platform's API key (401 without, 403 for a tenant
// token), since the metrics name every tenant's endpoints. A nil
// apiServer (tests of the figures alone) serves them unguarded.
func (o *observability) withMetrics(next http.Handler, apiServer *api.Server) http.Handler {
	metrics := o.MetricsHandler()
	if apiServer != nil {
		metrics = apiServer.RequireAPIKey(metrics)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	mux.Handle("/", next)
	return mux
}

// scrapeHandler serves GET /metrics alone, for a listener of its own
// (--metrics-addr) that Prometheus scrapes without hookd credentials:
// the operator keeps that address off the public network. A tenant
// token is still refused (403) when an API is in the process.
func (o *observability) scrapeHandler(apiServer *api.Server) http.Handler {
	metrics := o.MetricsHandler()
	if apiServer != nil {
		metrics = apiServer.PlatformOnly(metrics)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	mux.Handle("/", http.NotFoundHandler())
	return mux
}
