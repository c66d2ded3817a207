package app

import (
	"context"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/lifecycle"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/outbox"
	"github.com/hookd/hookd/internal/store/sqlstore"
	"github.com/hookd/hookd/internal/tracing"
)

// parts are what every hookd process builds the same way, hookd dev and
// hookd worker/api/serve alike: the emitter of operational events and
// the publisher of the store's outbox of them, the observability (figures flusher, success-rate alerts, gauges) and the
// event pruner, all background work in one lifecycle group that stop
// cancels and joins.
type parts struct {
	bg     *lifecycle.Group
	store  *sqlstore.Store
	client client.Client
	obs    *observability
	events *opevents.Emitter
	tracer *tracing.Tracer // nil: tracing off
	log    *slog.Logger
}

// startParts builds the emitter of operational events and starts the
// outbox publisher and the observability on the store and client, in one
// lifecycle group; stop stops them.
func startParts(st *sqlstore.Store, c client.Client, obs *observability, tracer *tracing.Tracer, noEventKeys bool, log *slog.Logger) (parts, error) {
	pub := &ingest.Publisher{Temporal: c, Endpoints: st, Records: st, Slots: st, Logger: log, Metrics: obs.metrics, Tracer: tracer, NoEventKeys: noEventKeys}
	if err := pub.Validate(); err != nil {
		return parts{}, err
	}
	p := parts{bg: lifecycle.New(log), store: st, client: c, obs: obs, tracer: tracer, log: log,
		events: opevents.NewEmitter(pub, st)}
	p.bg.Go("operational events outbox", outbox.New(outbox.Config{Store: st, Emitter: p.events, Logger: log}).Run)
	return p, obs.start(p.bg, st, c)
}

// startPruner deletes event records past the dedup window, in the group.
func (p parts) startPruner(window time.Duration) {
	p.bg.Go("event pruner", func(ctx context.Context) {
		ingest.RunPruner(ctx, p.store, window, ingest.DefaultPruneEvery, p.log)
	})
}

// stop stops the background work and waits for it, at most until ctx is
// done: the figures' last flush. Call it
// after the worker stopped and before the client and the store close. A
// zero parts stops as a no-op.
func (p parts) stop(ctx context.Context) error {
	if p.bg == nil {
		return nil
	}
	return p.bg.Stop(ctx)
}

// activities completes cfg with the store, the client and the hooks, and
// returns the activities.
func (p parts) activities(cfg activities.Config) (*activities.Activities, error) {
	cfg.Endpoints, cfg.Records, cfg.Temporal, cfg.Logger = p.store, p.store, p.client, p.log
	cfg.Events, cfg.Observe, cfg.Metrics = p.events, p.obs.Observe, p.obs.metrics
	cfg.Tracer = p.tracer
	return activities.New(cfg)
}
