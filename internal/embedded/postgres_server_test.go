package embedded_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/embedded"
	"github.com/hookd/hookd/internal/store/pgtest"
	"github.com/hookd/hookd/internal/testkit"
)

func echo(_ workflow.Context, s string) (string, error) { return s, nil }

// TestServerOnPostgres starts the embedded server on a new PostgreSQL
// server (databases and schemas created), runs a workflow that carries
// hookd's search attributes, finds it with a Hookd query, stops; then
// starts again on the same databases and finds it still there.
func TestServerOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Temporal and PostgreSQL; skipped with -short")
	}
	u, err := url.Parse(pgtest.Start(t))
	require.NoError(t, err)
	u.Path = "/temporal"
	opts := embedded.Options{
		Postgres:         &embedded.Postgres{URL: u.String()},
		Namespace:        "default",
		SearchAttributes: delivery.SearchAttributes(),
		Logger:           slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
		LogLevel:         slog.LevelError,
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const query = "HookdEndpointId = 'ep_pg' AND HookdStatus = 'pending'"

	began := time.Now()
	srv, c := startOnPostgres(t, opts)
	t.Logf("first start (databases and schemas created): %s", time.Since(began).Round(time.Millisecond))
	require.Equal(t, embedded.DefaultPostgresShards, srv.HistoryShards(), "new PostgreSQL persistence takes the default shards")
	w := sdkworker.New(c, "pg-test", sdkworker.Options{})
	w.RegisterWorkflowWithOptions(echo, workflow.RegisterOptions{Name: "echo"})
	require.NoError(t, w.Start())
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: "pg-delivery", TaskQueue: "pg-test",
		TypedSearchAttributes: temporal.NewSearchAttributes(
			delivery.AttrEndpointID.ValueSet("ep_pg"), delivery.AttrStatus.ValueSet("pending")),
	}, "echo", "hello")
	require.NoError(t, err)
	var out string
	require.NoError(t, run.Get(ctx, &out))
	require.Equal(t, "hello", out)
	require.Eventually(t, func() bool { return listed(ctx, c, query) == 1 }, 10*time.Second, 100*time.Millisecond,
		"the completed workflow is found by a Hookd search-attribute query")
	w.Stop()
	c.Close()
	srv.Stop()

	began = time.Now()
	srv, c = startOnPostgres(t, opts)
	t.Logf("second start (schemas in place): %s", time.Since(began).Round(time.Millisecond))
	require.Equal(t, 1, listed(ctx, c, query), "the first run's workflow is still there")
	c.Close()
	srv.Stop()

	opts.HistoryShards = 2
	opts.FrontendAddr = testkit.FreeAddr(t)
	_, err = embedded.Start(opts)
	require.ErrorContains(t, err, fmt.Sprintf("created with %d history shards, not 2", embedded.DefaultPostgresShards), "a count that differs from the persistence's stops the server")
}

func startOnPostgres(t *testing.T, opts embedded.Options) (*embedded.Server, client.Client) {
	t.Helper()
	opts.FrontendAddr = testkit.FreeAddr(t)
	srv, err := embedded.Start(opts)
	require.NoError(t, err)
	c, err := client.Dial(client.Options{HostPort: opts.FrontendAddr, Namespace: opts.Namespace})
	if err != nil {
		srv.Stop()
		t.Fatal(err)
	}
	return srv, c
}

// listed counts the closed workflows query finds, or -1 on error.
func listed(ctx context.Context, c client.Client, query string) int {
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default", Query: query})
	if err != nil {
		return -1
	}
	return len(resp.GetExecutions())
}
