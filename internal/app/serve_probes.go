package app

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/store"
)

// probeTimeout bounds each readiness check.
const probeTimeout = 2 * time.Second

// probes serves /healthz and /readyz in front of next (nil: nothing else).
// /healthz is liveness: the process answers. /readyz is readiness: not
// draining, Temporal answers CheckHealth and the store answers a query.
func (s *Serve) probes(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeProbe(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", s.readyz)
	if next != nil {
		mux.Handle("/", next)
	}
	return mux
}

func (s *Serve) readyz(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		writeProbe(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
	defer cancel()
	checks := map[string]string{"temporal": "ok", "store": "ok"}
	status := http.StatusOK
	if _, err := s.Client.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		s.cfg.Logger.Warn("readiness: temporal unreachable", "error", err)
		checks["temporal"], status = "unavailable", http.StatusServiceUnavailable
	}
	if _, _, err := s.proc.store.ListEndpoints(ctx, store.AllTenants, store.Page{Limit: 1}); err != nil {
		s.cfg.Logger.Warn("readiness: endpoint store unreachable", "error", err)
		checks["store"], status = "unavailable", http.StatusServiceUnavailable
	}
	writeProbe(w, status, map[string]any{"status": map[bool]string{true: "ok", false: "unavailable"}[status == http.StatusOK], "checks": checks})
}

func writeProbe(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// metricsHandler serves the default Prometheus registry (Go runtime and
