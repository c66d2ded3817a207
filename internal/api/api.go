// Package api is hookd's HTTP API: tenants, endpoints, event ingest and
// the event records, deliveries and dead letters. It starts workflows and
// reads their state through the Temporal client; it never runs an
// activity itself. Every /v1 route passes through one authentication
// middleware and declares the access it requires (routes.go); what a route
// reads and changes is confined to the caller's scope through package
// authz.
package api

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/catalog"
	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/expunge"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/metrics"
	"github.com/hookd/hookd/internal/stats"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/tracing"
	"github.com/hookd/hookd/internal/wake"
	"github.com/hookd/hookd/signing"
)

// DefaultMaxPayload is the largest event payload accepted.
const DefaultMaxPayload = 256 << 10

// Config holds the API's collaborators and settings.
type Config struct {
	// Temporal starts and reads workflows. Required.
	Temporal client.Client
	// Store holds endpoints. Required.
	Store store.Store
	// APIKeys are the platform's bearer tokens. Required (at least one).
	// Tenant tokens (authz.TokenPrefix) are resolved through Store.
	APIKeys []string
	// Namespace is the Temporal namespace the client uses. Required.
	Namespace string
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// MaxPayload bounds an event's payload; zero means DefaultMaxPayload.
	MaxPayload int64
	// EagerStart asks Temporal to hand new deliveries straight to the
	// worker in this process (only with an in-process worker).
	EagerStart bool
	// NoEventKeys records events without a data key
	// (ingest.Publisher.NoEventKeys).
	NoEventKeys bool
	// Stats, if set, adds an endpoint's success rates and latencies to its
	// health.
	Stats func(ctx context.Context, endpointID string) (stats.Figures, error)
	// Hours, if set, reads the hourly attempt totals the portal's charts
	// draw (store.Stats.HourlyStats).
	Hours HourlyStore
	// URLPolicy validates endpoint URLs; nil accepts http and https.
	URLPolicy func(u string) error
	// DataConverter is the Temporal client's, for the payloads the API
	// reads or writes without the client (run inputs, heartbeat details,
	// batch signals); nil means the SDK default.
	DataConverter converter.DataConverter
	// Metrics counts duplicate ingests; nil counts nothing.
	Metrics *metrics.Metrics
	// CursorSecret is what the page cursors' HMAC key is derived from:
	// the store's master key, the same in every API process of a
	// deployment, so any of them reads a cursor another made. Empty
	// means a random key per process.
	CursorSecret []byte
	// AuthFailureLimit and AuthFailureWindow throttle failed
	// authentications: a client address with AuthFailureLimit failures
	// within a window is answered 429 until it ends. Zero means
	// DefaultAuthFailureLimit and DefaultAuthFailureWindow.
	AuthFailureLimit  int
	AuthFailureWindow time.Duration
	// TrustedProxies are the peers (load balancers) whose X-Forwarded-For
	// names the client failures are counted by; by default the
	// connection's peer is the client.
	TrustedProxies []netip.Prefix
	// Limits are the quotas per tenant, endpoint and credential; the
	// zero value is the defaults.
	Limits Limits
	// PublicURL is the API's base URL as browsers reach it
	// (https://hooks.example.com): portal sign-in links point there, never
	// at the Host a request named. Empty refuses to issue links.
	PublicURL string
	// Version is hookd's version, the info.version of the OpenAPI
	// document served at /v1/openapi.json.
	Version string
	// RecoverImmediate is the largest backlog a recover signals at once;
	// a larger one is woken at the drain's pace. Zero means
	// wake.Immediate.
	RecoverImmediate int
	// Tracer traces ingest (the event record's claim and the workflow
	// starts within it), redrives and recovers; nil is tracing off.
	Tracer *tracing.Tracer
	// DefaultSigning is the signing profile of endpoints created without
	// one; the zero value is Standard Webhooks. New normalizes it.
	DefaultSigning signing.Profile
	// RequireEventTypes refuses posted events whose type the event-type
	// catalog does not have; by default they are accepted.
	RequireEventTypes bool
	// Circuit is the circuit breakers' tuning the workers use, for the
	// routes that say whether an endpoint takes attempts now (a test
	// event's refusal, a redrive's hold); zero means
	// circuit.DefaultPolicy().
	Circuit circuit.Policy
}

// Server serves the API.
type Server struct {
	temporal   client.Client
	namespace  string
	store      store.Store
	auth       *authz.Authenticator
	res        *authz.Resources
	log        *slog.Logger
	maxPayload int64
	publisher  *ingest.Publisher
	expunger   *expunge.Expunger
	urlPolicy  func(string) error
	dc         converter.DataConverter
	stats      func(context.Context, string) (stats.Figures, error)
	hours      HourlyStore
	now        func() time.Time
	cursors    cursors
	version    string
	publicURL  string

	authFailures   *authFailures
	trustedProxies []netip.Prefix

	quotas           *quotas
	recoverImmediate int
	wakeSettle       time.Duration
	testWait         time.Duration // MaxTestWait
	router           chi.Router
	tracer           *tracing.Tracer // nil: tracing off
	defaultSigning   signing.Profile
	circuit          circuit.Policy

	catalog           *catalog.Catalog
	requireEventTypes bool
}

// Validate checks the fields New needs: Temporal, Store, Namespace and
// at least one API key.
func (cfg Config) Validate() error {
	switch {
	case cfg.Temporal == nil:
		return errors.New("api: missing Temporal client")
	case cfg.Store == nil:
		return errors.New("api: missing endpoint store")
	case cfg.Namespace == "":
		return errors.New("api: missing Temporal namespace")
	case len(cfg.APIKeys) == 0:
		return errors.New("api: at least one API key is required")
	}
	return nil
}

// New validates cfg and returns the API server.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Server{
		temporal:   cfg.Temporal,
		namespace:  cfg.Namespace,
		store:      cfg.Store,
		log:        cfg.Logger,
		maxPayload: cfg.MaxPayload,
		urlPolicy:  cfg.URLPolicy,
		dc:         cfg.DataConverter,
		stats:      cfg.Stats,
		hours:      cfg.Hours,
		now:        time.Now,
		version:    cfg.Version,

		recoverImmediate: cmp.Or(cfg.RecoverImmediate, wake.Immediate),
		wakeSettle:       wake.Settle,
		testWait:         MaxTestWait,
		tracer:           cfg.Tracer,

		catalog:           catalog.New(cfg.Store),
		requireEventTypes: cfg.RequireEventTypes,
		circuit:           cmp.Or(cfg.Circuit, circuit.DefaultPolicy()),
	}
	auth, err := authz.NewAuthenticator(cfg.APIKeys, cfg.Store)
	if err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	if s.cursors, err = newCursors(cfg.CursorSecret); err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	if s.publicURL, err = ParsePublicURL(cfg.PublicURL); err != nil {
		return nil, fmt.Errorf("api: %w", err)
	}
	if cfg.DefaultSigning != (signing.Profile{}) {
		if s.defaultSigning, err = cfg.DefaultSigning.Normalize(); err != nil {
			return nil, fmt.Errorf("api: default signing profile: %w", err)
		}
	}
	s.trustedProxies = cfg.TrustedProxies
	s.quotas = newQuotas(cfg.Limits, func() time.Time { return s.now() })
	s.auth, s.res = auth, &authz.Resources{Store: cfg.Store}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.dc == nil {
		s.dc = converter.GetDefaultDataConverter()
	}
	s.authFailures = newAuthFailures(cfg.AuthFailureLimit, cfg.AuthFailureWindow, s.log)
	if s.maxPayload <= 0 {
		s.maxPayload = DefaultMaxPayload
	}
	s.publisher = &ingest.Publisher{Temporal: cfg.Temporal, Endpoints: cfg.Store, Records: cfg.Store, Slots: cfg.Store, EagerStart: cfg.EagerStart, NoEventKeys: cfg.NoEventKeys, Logger: s.log, Metrics: cfg.Metrics, Tracer: cfg.Tracer}
	if err := s.publisher.Validate(); err != nil {
		return nil, err
	}
	s.expunger = expunge.New(cfg.Store, cfg.Temporal, s.log)
	s.router = s.routes()
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setResponseHeaders(w.Header())
	s.router.ServeHTTP(w, r)
}

func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		return rc.RoutePattern()
	}
	return ""
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
