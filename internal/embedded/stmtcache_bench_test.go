package embedded

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/metrics"
	persistencesql "go.temporal.io/server/common/persistence/sql"
	"go.temporal.io/server/common/persistence/sql/sqlplugin"
	"go.temporal.io/server/common/resolver"
)

// BenchmarkVisibilityStartAndClose is one delivery's two visibility writes
// through Temporal's SQLite plugin, on the embedded server's trimmed
// schema: the start record, then the close record's upsert. "uncached" is
// the plugin as shipped, which compiles both statements on every call.
//
//	go test -run '^$' -bench VisibilityStartAndClose -benchtime 2000x ./internal/embedded/
func BenchmarkVisibilityStartAndClose(b *testing.B) {
	for _, cached := range []bool{false, true} {
		name := map[bool]string{false: "uncached", true: "cached"}[cached]
		b.Run(name, func(b *testing.B) {
			cfg := sqliteConfig(filepath.Join(b.TempDir(), "vis.db"))
			if err := prepare(cfg); err != nil {
				b.Fatal(err)
			}
			if _, err := tuneVisibility(context.Background(), cfg.DatabaseName, Tuning{}); err != nil {
				b.Fatal(err)
			}
			if cached {
				if err := cacheStatements(cfg); err != nil {
					b.Fatal(err)
				}
			}
			db, err := persistencesql.NewSQLDB(sqlplugin.DbKindVisibility, cfg,
				resolver.NewNoopResolver(), log.NewNoopLogger(), metrics.NoopMetricsHandler)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			now := time.Now().UTC()
			b.ResetTimer()
			for i := range b.N {
				row := &sqlplugin.VisibilityRow{
					NamespaceID: "ns", RunID: fmt.Sprintf("run-%d", i), WorkflowTypeName: "Delivery",
					WorkflowID: fmt.Sprintf("dlv_%d", i), StartTime: now, ExecutionTime: now, Status: 1,
					Memo: []byte{}, Encoding: "Proto3", TaskQueue: "hookd", RootWorkflowID: fmt.Sprintf("dlv_%d", i),
					RootRunID: fmt.Sprintf("run-%d", i), Version: 1,
					SearchAttributes: &sqlplugin.VisibilitySearchAttributes{"Keyword01": "ep_1", "Keyword02": "evt", "Keyword03": "pending"},
				}
				if _, err := db.InsertIntoVisibility(ctx, row); err != nil {
					b.Fatal(err)
				}
				closed, hl := now.Add(time.Millisecond), int64(6)
				row.Status, row.CloseTime, row.HistoryLength, row.Version = 2, &closed, &hl, 2
				(*row.SearchAttributes)["Keyword03"] = "delivered"
				if _, err := db.ReplaceIntoVisibility(ctx, row); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
