package activities

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/expunge"
	"github.com/hookd/hookd/internal/metrics"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/tracing"
	"github.com/hookd/hookd/internal/wake"
)

// Endpoints is what the activities use of the endpoint store.
type Endpoints interface {
	GetEndpoint(ctx context.Context, id string) (*store.Endpoint, error)
	ReadForAttempt(ctx context.Context, endpointID, eventID string, now time.Time) (*store.AttemptRead, error)
	DisableEndpoint(ctx context.Context, id, reason string, at time.Time, events ...store.OpEvent) (bool, error)
	store.Circuits
	store.RateLimits
}

// Activities holds the dependencies of hookd's activities. Register a
// *Activities with a worker; its exported methods are the activities.
type Activities struct {
	endpoints Endpoints
	http      *http.Client
	temporal  client.Client
	userAgent string
	log       *slog.Logger
	now       func() time.Time
	jitter    func() float64 // uniform in [-1, 1)

	deadLetterRetention time.Duration
	dedupWindow         time.Duration
	disabledPoll        time.Duration
	circuit             circuit.Policy
	autoDisableAfter    time.Duration
	circuitSleep        time.Duration
	wakeSettle          time.Duration
	sleepers            sleepers
	observe             func(endpointID string, at delivery.Attempt)
	events              Events
	metrics             *metrics.Metrics
	shares              *endpointShares // nil: unbounded (LimitEndpoints)
	pace                pacer           // spaces attempts to limited endpoints
	outcomes            localOutcomes   // local attempts' results, for a refused task's replay
	tokens              tokenCache      // OAuth 2.0 tokens of this worker
	clients             *endpointClients
	tracer              *tracing.Tracer // nil: tracing off
	records             EventRecords    // nil: no tenant expunge
	expunger            *expunge.Expunger
}

// Events emits hookd's operational events (opevents.Emitter): recorded
// and their deliveries started before Emit returns.
type Events interface {
	Emit(ctx context.Context, ev opevents.Event) error
}

// Config holds what New needs. Endpoints and Temporal are required
// (Validate).
type Config struct {
	Endpoints Endpoints
	// Egress is how attempts and token requests leave: the clients of
	// endpoints with TLS settings are built from it, and so is HTTP
	// when nil.
	Egress Egress
	// HTTP sends the attempts of endpoints without TLS settings, and
	// token requests; it must not follow redirects (see NewHTTPClient).
	// Nil: Egress's.
	HTTP     *http.Client
	Temporal client.Client
	Version  string
	Logger   *slog.Logger
	// DeadLetterRetention is how long dead letters wait for a redrive;
	// zero means DefaultDeadLetterRetention.
	DeadLetterRetention time.Duration
	// DedupWindow is how long an event's record lasts (the namespace
	// retention); a dead letter ends within it. Zero: dead letters wait
	// the whole DeadLetterRetention.
	DedupWindow time.Duration
	// DisabledPoll is how often a delivery to a disabled endpoint checks
	// again; zero means DefaultDisabledPoll.
	DisabledPoll time.Duration
	// Circuit tunes the endpoints' circuit breakers; zero means
	// circuit.DefaultPolicy().
	Circuit circuit.Policy
	// AutoDisableAfter disables an endpoint whose attempts kept failing
	// with no success for this long (reason auto); zero never does. A
	// 410 Gone disables at once whatever it is (reason gone).
	AutoDisableAfter time.Duration
	// CircuitSleep is how long a delivery deferred by an open circuit
	// sleeps when it is not one of the round's probers; zero means
	// DefaultCircuitSleep. The circuit closing wakes it sooner.
	CircuitSleep time.Duration
	// Observe, if set, is told every attempt made (not deferrals), after
	// it is made: the hook for metrics and health figures. It must not
	// block.
	Observe func(endpointID string, at delivery.Attempt)
	// Events emits hookd's operational events (endpoint health and
	// auto-disable, dead letters, redrives); nil disables them.
	Events Events
	// Metrics counts redrive starts; nil counts nothing.
	Metrics *metrics.Metrics
	// Tracer traces each HTTP attempt as a client span; nil is tracing
	// off.
	Tracer *tracing.Tracer
	// Records are the event records a deleted tenant's expunge job
	// expunges (ExpungePage); nil leaves that activity unable to run.
	Records EventRecords
}

// Validate checks the fields New needs: Endpoints and Temporal.
func (cfg Config) Validate() error {
	switch {
	case cfg.Endpoints == nil:
		return errors.New("activities: missing endpoint store")
	case cfg.Temporal == nil:
		return errors.New("activities: missing Temporal client")
	}
	return nil
}

// New validates cfg and returns the activities.
func New(cfg Config) (*Activities, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	httpClient := cfg.HTTP
	if httpClient == nil {
		httpClient = cfg.Egress.client(clientTLS{})
	}
	a := &Activities{
		endpoints: cfg.Endpoints,
		http:      httpClient,
		clients:   newEndpointClients(cfg.Egress, maxEndpointClients),
		temporal:  cfg.Temporal,
		userAgent: "hookd/" + cfg.Version,
		log:       logger,
		now:       time.Now,
		jitter:    func() float64 { return rand.Float64()*2 - 1 },

		deadLetterRetention: cmp.Or(cfg.DeadLetterRetention, DefaultDeadLetterRetention),
		dedupWindow:         cfg.DedupWindow,
		disabledPoll:        cmp.Or(cfg.DisabledPoll, DefaultDisabledPoll),
		events:              cfg.Events,
		observe:             cfg.Observe,
		metrics:             cfg.Metrics,
		circuit:             cmp.Or(cfg.Circuit, circuit.DefaultPolicy()),
		autoDisableAfter:    cfg.AutoDisableAfter,
		circuitSleep:        cmp.Or(cfg.CircuitSleep, DefaultCircuitSleep),
		wakeSettle:          wake.Settle,
		tracer:              cfg.Tracer,
		records:             cfg.Records,
	}
	if cfg.Records != nil {
		a.expunger = expunge.New(cfg.Records, cfg.Temporal, logger)
	}
	return a, nil
}
