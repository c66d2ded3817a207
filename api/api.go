// Package api is hookd's HTTP API: endpoints, event ingest and the event
// records, deliveries and dead letters. It starts workflows and reads
// their state through the Temporal client; it never runs an activity
// itself.
package api

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/hookd/hookd/ingest"
	"github.com/hookd/hookd/store"
)

// DefaultMaxPayload is the largest event payload accepted.
const DefaultMaxPayload = 256 << 10

// Config holds the API's collaborators and settings.
type Config struct {
	// Temporal starts and reads workflows. Required.
	Temporal client.Client
	// Store holds endpoints. Required.
	Store store.Store
	// APIKeys are the accepted bearer tokens. Required (at least one).
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
	// Stats, if set, adds an endpoint's success rates and latencies to its
	// health.
	Stats func(ctx context.Context, endpointID string) (any, error)
	// URLPolicy validates endpoint URLs; nil accepts http and https.
	URLPolicy func(u string) error
	// DataConverter is the Temporal client's, for the payloads the API
	// reads or writes without the client (run inputs, heartbeat details,
	// batch signals); nil means the SDK default.
	DataConverter converter.DataConverter
}

// Server serves the API.
type Server struct {
	temporal   client.Client
	namespace  string
	store      store.Store
	keys       [][]byte
	log        *slog.Logger
	maxPayload int64
	publisher  *ingest.Publisher
	urlPolicy  func(string) error
	dc         converter.DataConverter
	stats      func(context.Context, string) (any, error)
	now        func() time.Time
	router     chi.Router
}

// New validates cfg and returns the API server.
func New(cfg Config) (*Server, error) {
	switch {
	case cfg.Temporal == nil:
		return nil, errors.New("api: missing Temporal client")
	case cfg.Store == nil:
		return nil, errors.New("api: missing endpoint store")
	case cfg.Namespace == "":
		return nil, errors.New("api: missing Temporal namespace")
	case len(cfg.APIKeys) == 0:
		return nil, errors.New("api: at least one API key is required")
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
		now:        time.Now,
	}
	for _, k := range cfg.APIKeys {
		if k == "" {
			return nil, errors.New("api: empty API key")
		}
		s.keys = append(s.keys, []byte(k))
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.dc == nil {
		s.dc = converter.GetDefaultDataConverter()
	}
	if s.maxPayload <= 0 {
		s.maxPayload = DefaultMaxPayload
	}
	s.publisher = &ingest.Publisher{Temporal: cfg.Temporal, Endpoints: cfg.Store, Records: cfg.Store, EagerStart: cfg.EagerStart, Logger: s.log}
	s.router = s.routes()
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

func (s *Server) routes() chi.Router {
	r := chi.NewRouter()
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Route("/v1", func(r chi.Router) {
		r.Use(s.authenticate)
		r.Post("/endpoints", s.createEndpoint)
		r.Get("/endpoints", s.listEndpoints)
		r.Get("/endpoints/{id}", s.getEndpoint)
		r.Patch("/endpoints/{id}", s.updateEndpoint)
		r.Delete("/endpoints/{id}", s.deleteEndpoint)
		r.Post("/endpoints/{id}/secret/rotate", s.rotateSecret)
		r.Get("/endpoints/{id}/health", s.endpointHealth)
		r.Post("/endpoints/{id}/test", s.testEndpoint)
		r.Post("/events", s.postEvent)
		r.Post("/events/batch", s.postEventBatch)
		r.Get("/events", s.listEvents)
		r.Get("/events/{id}", s.getEvent)
		r.Get("/deliveries/{id}", s.getDelivery)
		r.Get("/dead-letters", s.listDeadLetters)
		r.Get("/dead-letters/summary", s.deadLetterSummary)
		r.Post("/dead-letters/redrive", s.redriveMany)
		r.Get("/dead-letters/redrive/{job}", s.redriveJob)
		r.Get("/dead-letters/{id}", s.getDeadLetter)
		r.Post("/dead-letters/{id}/redrive", s.redriveOne)
		r.NotFound(func(w http.ResponseWriter, r *http.Request) {
			s.writeError(w, r, &Error{Code: CodeNotFound, Message: "no such route"})
		})
	})
	return r
}

// RequireAPIKey guards a handler outside the API's routes (the codec
// server) with the API's own key check: the platform API key or 401.
func (s *Server) RequireAPIKey(next http.Handler) http.Handler { return s.authenticate(next) }

// authenticate requires "Authorization: Bearer <key>" with a configured
// key, compared in constant time. The 401 does not say what was wrong.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		match := 0
		for _, k := range s.keys {
			match |= subtle.ConstantTimeCompare([]byte(token), k)
		}
		if !ok || match != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hookd"`)
			s.writeError(w, r, &Error{Code: CodeUnauthorized, Message: "missing or invalid API key"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		return rc.RoutePattern()
	}
	return ""
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
