package app

import (
	"log/slog"

	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/activities"
	"github.com/hookd/hookd/ingest"
	"github.com/hookd/hookd/store/sqlstore"
)

// parts are what every hookd process builds the same way, hookd dev and
// hookd worker/api/serve alike: the publisher of operational events and
// the observability (figures flusher, success-rate alerts, gauges).
type parts struct {
	store     *sqlstore.Store
	client    client.Client
	obs       *observability
	publisher *ingest.Publisher
	log       *slog.Logger
}

// startParts starts the observability on the store and client.
func startParts(st *sqlstore.Store, c client.Client, obs *observability, log *slog.Logger) (parts, error) {
	p := parts{store: st, client: c, obs: obs, log: log,
		publisher: &ingest.Publisher{Temporal: c, Endpoints: st, Records: st, Logger: log}}
	return p, obs.start(st, c, p.publisher)
}

// activities completes cfg with the store, the client and the hooks, and
// returns the activities.
func (p parts) activities(cfg activities.Config) *activities.Activities {
	cfg.Endpoints, cfg.Temporal, cfg.Logger = p.store, p.client, p.log
	cfg.Publisher, cfg.Observe = p.publisher, p.obs.Observe
	return activities.New(cfg)
}
