package embedded

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// DefaultShards and DefaultPostgresShards are the history shards of new
// persistence when Options.HistoryShards is zero: on SQLite, whose one
// writer serialises every shard's writes anyway, one; on PostgreSQL,
// where a shard's writes wait on each other's commits, eight
// (docs/performance.md).
const (
	DefaultShards         = 1
	DefaultPostgresShards = 8
)

// shardsFor is the shard count the configuration asks for: opts's, or the
// default of its persistence.
func shardsFor(opts Options) int {
	switch {
	case opts.HistoryShards > 0:
		return opts.HistoryShards
	case opts.Postgres != nil:
		return DefaultPostgresShards
	}
	return DefaultShards
}

// shardCount asks the started server's frontend for its history shard
// count. Temporal keeps the count its persistence was created with and
// ignores another in the configuration, so when want is set (an
// operator's explicit count) and differs, it fails rather than let the
// operator believe the new count applies.
func shardCount(addr string, want int) (int, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return 0, fmt.Errorf("embedded temporal: connect to read the shard count: %w", err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := workflowservice.NewWorkflowServiceClient(conn).GetClusterInfo(ctx, &workflowservice.GetClusterInfoRequest{})
	if err != nil {
		return 0, fmt.Errorf("embedded temporal: read the shard count: %w", err)
	}
	got := int(info.GetHistoryShardCount())
	if want > 0 && got != want {
		return got, fmt.Errorf("embedded temporal: its persistence was created with %d history shards, not %d: the count cannot change (keep %d, or start on new persistence)", got, want, got)
	}
	return got, nil
}
