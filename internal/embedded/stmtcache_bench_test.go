package embedded

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"syscall"
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
			db := openVisibilityForBench(b, cached, false)
			ctx := context.Background()
			now := time.Now().UTC()
			b.ResetTimer()
			for i := range b.N {
				startAndClose(b, ctx, db, i, now)
			}
		})
	}
}

// BenchmarkVisibilityWritesAtOnce is deliveries' visibility writes made
// by many goroutines at once, as Temporal's visibility queue makes them:
// each committed on its own ("autocommit", the plugin as shipped) or
// sharing commits (commitGroup). cpu-us/op is the process's CPU time per
// delivery (two writes).
//
//	go test -run '^$' -bench VisibilityWritesAtOnce -benchtime 4000x ./internal/embedded/
func BenchmarkVisibilityWritesAtOnce(b *testing.B) {
	for _, shared := range []bool{false, true} {
		name := map[bool]string{false: "autocommit", true: "shared"}[shared]
		b.Run(name, func(b *testing.B) {
			db := openVisibilityForBench(b, true, shared)
			ctx := context.Background()
			now := time.Now().UTC()
			var next atomic.Int64
			b.SetParallelism(16)
			cpu, commits := processCPU(), SharedCommitCounts()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					startAndClose(b, ctx, db, int(next.Add(1)), now)
				}
			})
			b.StopTimer()
			b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-us/op")
			if shared {
				b.ReportMetric(SharedCommitCounts().Since(commits).PerCommit(), "writes/commit")
			}
		})
	}
}

// openVisibilityForBench opens a visibility file with the embedded
// server's trimmed schema through Temporal's SQLite plugin.
func openVisibilityForBench(b *testing.B, cached, shared bool) sqlplugin.DB {
	b.Helper()
	cfg := sqliteConfig(filepath.Join(b.TempDir(), "vis.db"))
	if err := prepare(cfg); err != nil {
		b.Fatal(err)
	}
	if _, err := tuneVisibility(context.Background(), cfg.DatabaseName, Tuning{}); err != nil {
		b.Fatal(err)
	}
	if cached {
		if err := cacheStatements(cfg, shared); err != nil {
			b.Fatal(err)
		}
	}
	db, err := persistencesql.NewSQLDB(sqlplugin.DbKindVisibility, cfg,
		resolver.NewNoopResolver(), log.NewNoopLogger(), metrics.NoopMetricsHandler)
	if err != nil {
		b.Fatal(err)
	}
	return db
}

// startAndClose writes delivery i's start record, then its close record.
func startAndClose(b *testing.B, ctx context.Context, db sqlplugin.DB, i int, now time.Time) {
	row := &sqlplugin.VisibilityRow{
		NamespaceID: "ns", RunID: fmt.Sprintf("run-%d", i), WorkflowTypeName: "Delivery",
		WorkflowID: fmt.Sprintf("dlv_%d", i), StartTime: now, ExecutionTime: now, Status: 1,
		Memo: []byte{}, Encoding: "Proto3", TaskQueue: "hookd", RootWorkflowID: fmt.Sprintf("dlv_%d", i),
		RootRunID: fmt.Sprintf("run-%d", i), Version: 1,
		SearchAttributes: &sqlplugin.VisibilitySearchAttributes{"Keyword01": "ep_1", "Keyword02": "evt", "Keyword03": "pending"},
	}
	if _, err := db.InsertIntoVisibility(ctx, row); err != nil {
		b.Error(err)
		return
	}
	closed, hl := now.Add(time.Millisecond), int64(6)
	row.Status, row.CloseTime, row.HistoryLength, row.Version = 2, &closed, &hl, 2
	(*row.SearchAttributes)["Keyword03"] = "delivered"
	if _, err := db.ReplaceIntoVisibility(ctx, row); err != nil {
		b.Error(err)
	}
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
