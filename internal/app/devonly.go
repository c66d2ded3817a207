package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/embedded"
	"github.com/hookd/hookd/internal/namespace"
)

// StartTemporalOnly runs `hookd dev --only-temporal`: the embedded Temporal
// server and Web UI of cfg, without hookd's worker, API or store, so that
// `hookd worker` and `hookd api` processes can run against it on one
// machine. It registers hookd's search attributes and sets the namespace
// retention to cfg.Retention, as an operator would on a real cluster.
// With cfg.TemporalPostgres set, Temporal persists in PostgreSQL instead of
// SQLite files in cfg.DataDir.
func StartTemporalOnly(ctx context.Context, cfg DevConfig) (*embedded.Server, error) {
	switch {
	case cfg.DataDir == "" && cfg.TemporalPostgres == nil:
		return nil, errors.New("missing data dir")
	case cfg.TemporalAddr == "":
		return nil, errors.New("missing Temporal address")
	}
	cfg.Namespace = cmp.Or(cfg.Namespace, "default")
	cfg.Retention = cmp.Or(cfg.Retention, namespace.DefaultRetention)
	srv, err := embedded.Start(embedded.Options{
		DataDir: cfg.DataDir, Postgres: cfg.TemporalPostgres, FrontendAddr: cfg.TemporalAddr, Namespace: cfg.Namespace,
		UIAddr: cfg.UIAddr, Logger: cfg.Logger, LogLevel: cfg.TemporalLogLevel,
		SearchAttributes: delivery.SearchAttributes(), HistoryShards: cfg.TemporalShards,
		Tuning: embedded.Tuning{AllVisibilityIndexes: cfg.TemporalAllVisibilityIndexes, StockExecutionStore: cfg.TemporalStockExecutionStore,
			StockVisibilityColumns: cfg.TemporalStockVisibilityColumns},
	})
	if err != nil {
		return nil, err
	}
	c, err := client.DialContext(ctx, client.Options{HostPort: cfg.TemporalAddr, Namespace: cfg.Namespace,
		Logger: sdkLogger(cfg.Logger)})
	if err != nil {
		srv.Stop()
		return nil, fmt.Errorf("connect to temporal: %w", err)
	}
	defer c.Close()
	if err := namespace.Ensure(ctx, c, cfg.Namespace, cfg.Retention, true, cfg.Logger); err != nil {
		srv.Stop()
		return nil, err
	}
	return srv, nil
}
