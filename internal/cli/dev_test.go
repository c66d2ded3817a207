package cli

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/hookd/hookd/internal/store/pgtest"
	"github.com/hookd/hookd/internal/testkit"
)

func TestTemporalDatabaseURLNeedsOnlyTemporal(t *testing.T) {
	t.Setenv("HOOKD_DATA_DIR", t.TempDir())
	code, out, errOut := hookd("dev", "--temporal-database-url", "postgres://u:s3cret@db/temporal")
	assert.Equal(t, 2, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "--temporal-database-url needs --only-temporal")
	assert.NotContains(t, errOut, "s3cret")

	t.Setenv("HOOKD_TEMPORAL_DATABASE_URL", "postgres://u:s3cret@db/temporal")
	code, _, errOut = hookd("dev")
	assert.Equal(t, 2, code, "the variable counts as the flag: %s", errOut)

	code, out, _ = hookd("dev", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "$HOOKD_TEMPORAL_DATABASE_URL")
	assert.NotContains(t, out, "s3cret", "the flag's value is never shown as a default")
}

// lineWriter collects output and closes running once a line says so.
type lineWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	running chan struct{}
	once    sync.Once
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), "is running") {
		w.once.Do(func() { close(w.running) })
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// --temporal-shards and --temporal-db-max-conns refuse counts out of
// range, naming the flag.
func TestTemporalShardsRange(t *testing.T) {
	t.Setenv("HOOKD_DATA_DIR", t.TempDir())
	for _, args := range [][]string{
		{"dev", "--temporal-shards", "5000"},
		{"dev", "--temporal-shards", "-1"},
		{"dev", "--only-temporal", "--temporal-db-max-conns", "0"},
	} {
		code, _, errOut := hookd(args...)
		assert.Equal(t, 2, code, "%v: %s", args, errOut)
		assert.Contains(t, errOut, args[len(args)-2], "%v names its flag", args)
	}
}

// TestOnlyTemporalOnPostgres runs `hookd dev --only-temporal
// --temporal-database-url`: the namespace gets hookd's search attributes
// and the retention asked for, and the printed URL hides the password.
func TestOnlyTemporalOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Temporal and PostgreSQL; skipped with -short")
	}
	u, err := url.Parse(pgtest.Start(t))
	require.NoError(t, err)
	u.Path = "/hookd_temporal"
	u.User = url.UserPassword(pgtest.User, "not-checked") // trust auth; shows the masking
	addr := testkit.FreeAddr(t)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lineWriter{running: make(chan struct{})}
	var errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- newEnv(strings.NewReader(""), out, &errOut).execute(ctx, []string{"dev", "--only-temporal",
			"--temporal-database-url", u.String(), "--temporal-addr", addr, "--ui-addr", "",
			"--retention", "72h", "--data-dir", t.TempDir(), "--log-level", "warn"})
	}()
	select {
	case <-out.running:
	case code := <-done:
		t.Fatalf("exited %d before running: %s %s", code, out, errOut.String())
	case <-time.After(time.Minute):
		t.Fatalf("not running after a minute: %s", out)
	}
	assert.Contains(t, out.String(), "PostgreSQL postgres://hookd:xxxxx@")
	assert.NotContains(t, out.String(), "not-checked")
	assert.Contains(t, out.String(), "(8 history shards)", "new PostgreSQL persistence takes 8 shards")

	c, err := client.Dial(client.Options{HostPort: addr, Namespace: "default"})
	require.NoError(t, err)
	defer c.Close()
	desc, err := c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: "default"})
	require.NoError(t, err)
	assert.Equal(t, 72*time.Hour, desc.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration())
	sas, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	require.NoError(t, err)
	assert.Contains(t, sas.GetCustomAttributes(), "HookdStatus")

	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, errOut.String())
	case <-time.After(30 * time.Second):
		t.Fatal("did not stop")
	}
}
