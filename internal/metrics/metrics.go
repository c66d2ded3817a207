// Package metrics is hookd's Prometheus instrumentation: delivery attempt
// outcomes and latencies, retries, dead letters and the oldest pending
// delivery (read periodically from Temporal visibility), duplicate ingests,
// redrives, circuit states, and the Temporal SDK's own worker and client
// metrics through an adapter, all on one registry served at /metrics and,
// when the OTEL_* environment names a collector, pushed over OTLP with the
// same names and labels.
//
// Attempts are counted by outcome, deliveries by how they ended. Per-endpoint
// labels (endpoint_id) can be switched off for installations
// with many endpoints; nothing else is labelled per endpoint, and no label
// ever holds a URL or a secret.
package metrics

import (
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/delivery"
)

// Config configures Metrics.
type Config struct {
	// NoEndpointLabels drops the endpoint_id label: attempts are counted
	// by outcome only and circuits by state only. For installations with
	// many endpoints.
	NoEndpointLabels bool
	// MaxEndpointSeries bounds the endpoints labelled one by one, so the
	// series do not grow with the endpoints: attempts of endpoints past
	// it are counted under endpoint_id="other", and hookd_circuit_state
	// shows that many endpoints, those with an open or half-open circuit
	// first. Zero means DefaultMaxEndpointSeries; negative, no bound.
	MaxEndpointSeries int
}

// DefaultMaxEndpointSeries is the endpoints labelled one by one by
// default (Config.MaxEndpointSeries).
const DefaultMaxEndpointSeries = 100

// OtherEndpoints is the endpoint_id label of the endpoints past
// Config.MaxEndpointSeries.
const OtherEndpoints = "other"

// endpointLabels hands out at most max endpoint_id labels, first come
// first served; later endpoints share OtherEndpoints.
type endpointLabels struct {
	max  int // < 0: no bound
	mu   sync.Mutex
	seen map[string]struct{}
}

func (l *endpointLabels) of(id string) string {
	if l.max < 0 {
		return id
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.seen[id]; ok {
		return id
	}
	if len(l.seen) >= l.max {
		return OtherEndpoints
	}
	l.seen[id] = struct{}{}
	return id
}

// Metrics holds hookd's collectors and the registry they are served from.
type Metrics struct {
	reg         *prometheus.Registry
	perEndpoint bool
	labels      *endpointLabels

	attempts *prometheus.CounterVec
	duration prometheus.Histogram
	retries  prometheus.Counter

	duplicateIngests prometheus.Counter
	filterErrors     *prometheus.CounterVec
	deliveries       *prometheus.CounterVec
	redrives         *prometheus.CounterVec

	deadLetters      prometheus.Gauge
	deadLetterOldest prometheus.Gauge
	pendingOldest    prometheus.Gauge
	circuitState     *prometheus.GaugeVec
	circuits         *prometheus.GaugeVec

	sdk *sdkCollector
	// soon asks RunRefresh for a refresh ahead of its period (a dead
	// letter parked or redriven).
	soon chan struct{}
}

// New returns hookd's metrics on a new registry, with the Go runtime and
// process collectors. Every collector belongs to this value: two in one
// process (two servers in a test) count apart.
func New(cfg Config) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), perEndpoint: !cfg.NoEndpointLabels, sdk: newSDKCollector(), soon: make(chan struct{}, 1)}
	m.labels = &endpointLabels{max: cfg.MaxEndpointSeries, seen: map[string]struct{}{}}
	if m.labels.max == 0 {
		m.labels.max = DefaultMaxEndpointSeries
	}
	attemptLabels := []string{"outcome"}
	if m.perEndpoint {
		attemptLabels = append(attemptLabels, "endpoint_id")
	}
	m.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hookd_attempts_total",
		Help: "HTTP delivery attempts made, by outcome (success, retryable, permanent).",
	}, attemptLabels)
	m.duration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "hookd_attempt_duration_seconds",
		Help:    "Duration of HTTP delivery attempts.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	})
	m.retries = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "hookd_retries_total",
		Help: "Retries scheduled after a retryable attempt failure.",
	})
	m.duplicateIngests = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "hookd_duplicate_ingests_total",
		Help: "Events posted again whose every delivery already existed.",
	})
	m.filterErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hookd_filter_errors_total",
		Help: "Content filters that failed on an event (and so did not match it), by reason (no_such_key, type, cost_limit, not_bool, payload, invalid, error).",
	}, []string{"reason"})
	m.deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hookd_deliveries_total",
		Help: "Deliveries ended, by final status: delivered, failed (a permanent failure) or exhausted (every attempt used).",
	}, []string{"status"})
	m.redrives = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hookd_redrives_total",
		Help: "Redrive starts of dead letters, by outcome (started, skipped, error).",
	}, []string{"outcome"})
	m.deadLetters = gauge("hookd_dead_letters", "Dead letters waiting for a redrive.")
	m.deadLetterOldest = gauge("hookd_dead_letter_oldest_age_seconds", "Age of the oldest waiting dead letter; 0 when there is none.")
	m.pendingOldest = gauge("hookd_oldest_pending_delivery_age_seconds", "Age of the oldest delivery not yet delivered, failed or exhausted; 0 when there is none.")
	m.circuitState = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "hookd_circuit_state",
		Help: "Circuit breaker state per endpoint: 0 closed, 1 half-open, 2 open.",
	}, []string{"endpoint_id"})
	m.circuits = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "hookd_circuits",
		Help: "Endpoints by circuit breaker state.",
	}, []string{"state"})

	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.duplicateIngests, m.filterErrors, m.redrives, m.deliveries,
		m.attempts, m.duration, m.retries,
		m.deadLetters, m.deadLetterOldest, m.pendingOldest, m.circuits,
		m.sdk,
	)
	if m.perEndpoint {
		m.reg.MustRegister(m.circuitState)
	}
	return m
}

func gauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
}

// Registry is the registry every hookd metric is on.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus text format; mount it at
// /metrics. A collector that fails does not fail the whole scrape.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, ErrorHandling: promhttp.ContinueOnError})
}

// SDKHandler is the Temporal SDK's metrics handler onto the registry: set
// it as client.Options.MetricsHandler.
func (m *Metrics) SDKHandler() client.MetricsHandler { return sdkHandler{c: m.sdk} }

// Observe counts one attempt made, and a successful one as a delivered
// delivery; it is (part of)
// activities.Config.Observe and does not block.
func (m *Metrics) Observe(endpointID string, at delivery.Attempt) {
	if at.Outcome == delivery.OutcomeDeferred {
		return
	}
	if m.perEndpoint {
		m.attempts.WithLabelValues(string(at.Outcome), m.labels.of(endpointID)).Inc()
	} else {
		m.attempts.WithLabelValues(string(at.Outcome)).Inc()
	}
	if at.Outcome == delivery.OutcomeSuccess {
		m.DeliveryEnded(delivery.StatusDelivered) // a success ends its delivery
	}
	m.duration.Observe(at.Duration.Seconds())
	if at.Outcome == delivery.OutcomeRetryable && !at.NextAttempt.IsZero() {
		m.retries.Inc()
	}
}
