package app

import (
	"log/slog"

	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store/sqlstore"
)

// parts are what every hookd process builds the same way, hookd dev and
// hookd worker/api/serve alike: the publisher of operational events and
// the observability (figures flusher, success-rate alerts, gauges).
type parts struct {
	store  *sqlstore.Store
	client client.Client
	obs    *observability
	events *opevents.Publisher
	log    *slog.Logger
}

// startParts starts the publisher of operational events and the
// observability on the store and client; the observability's Close stops
// both.
func startParts(st *sqlstore.Store, c client.Client, obs *observability, log *slog.Logger) (parts, error) {
	p := parts{store: st, client: c, obs: obs, log: log,
		events: opevents.NewPublisher(&ingest.Publisher{Temporal: c, Endpoints: st, Records: st, Logger: log, Metrics: obs.metrics}, log)}
	return p, obs.start(st, c, p.events)
}

// activities completes cfg with the store, the client and the hooks, and
// returns the activities.
func (p parts) activities(cfg activities.Config) *activities.Activities {
	cfg.Endpoints, cfg.Temporal, cfg.Logger = p.store, p.client, p.log
	cfg.Events, cfg.Observe, cfg.Metrics = p.events, p.obs.Observe, p.obs.metrics
	return activities.New(cfg)
}
