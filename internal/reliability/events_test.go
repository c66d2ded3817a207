package reliability

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/store/secretbox"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/receiver/reference"
)

// abortAfter is a Temporal client whose delivery starts fail after the
// first n: the process dies there.
type abortAfter struct {
	client.Client
	mu sync.Mutex
	n  int
}

func (a *abortAfter) ExecuteWorkflow(ctx context.Context, opts client.StartWorkflowOptions, wf any, args ...any) (client.WorkflowRun, error) {
	a.mu.Lock()
	if a.n == 0 {
		a.mu.Unlock()
		return nil, errors.New("process killed")
	}
	a.n--
	a.mu.Unlock()
	return a.Client.ExecuteWorkflow(ctx, opts, wf, args...)
}

// 6. A crash between recording an event and starting its deliveries loses
// nothing. hookd's own ingest code records the event (three endpoints)
// into hookd's store and makes one of the three starts against hookd's
// Temporal, then hookd dies by SIGKILL: the state a process killed right
// there leaves. After a restart, the client's retry of the same post is a
// duplicate that starts the two missing deliveries, and every receiver
// commits the event once.
func TestCrashBetweenRecordAndStarts(t *testing.T) {
	h := startHookd(t)
	var sinks []*sink
	for range 3 {
		s, _ := newSink(t, h, "rel.crash.*", reference.Faults{})
		sinks = append(sinks, s)
	}
	ctx := context.Background()
	key, err := secretbox.LoadOrCreateKeyFile(filepath.Join(h.dataDir, "master.key"))
	require.NoError(t, err)
	st, err := sqlite.Open(ctx, filepath.Join(h.dataDir, "hookd.db"), key)
	require.NoError(t, err)
	tc, err := client.Dial(client.Options{HostPort: h.tempo, Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	require.NoError(t, err)
	pub := &ingest.Publisher{Temporal: &abortAfter{Client: tc, n: 1}, Endpoints: st, Records: st}
	_, err = pub.Publish(ctx, ingest.Event{ID: "evt_crash", Type: "rel.crash.x", Body: `{"n":1}`})
	require.ErrorIs(t, err, ingest.ErrUnavailable)
	tc.Close()
	require.NoError(t, st.Close())
	h.kill9()
	h.start()

	var res wire.EventAccepted
	event := map[string]any{"event_id": "evt_crash", "type": "rel.crash.x", "payload": map[string]int{"n": 1}}
	require.Equal(t, http.StatusAccepted, h.call("POST", "/v1/events", event, &res))
	require.True(t, res.Duplicate, "the record survived the crash")
	require.Len(t, res.Deliveries, 3)
	delivered, effects, dups := 0, 0, 0
	for i, s := range sinks {
		waitDelivered(t, s, 1, time.Minute)
		d, e, dup := s.tally(t)
		require.Equal(t, 1, e, "receiver %d commits the event once", i)
		delivered, effects, dups = delivered+d, effects+e, dups+dup
	}
	require.Eventually(t, func() bool {
		var rec wire.EventRecord
		ok := h.call("GET", "/v1/events/evt_crash", nil, &rec) == http.StatusOK && len(rec.Deliveries) == 3
		for _, d := range rec.Deliveries {
			ok = ok && d.Status == "delivered"
		}
		return ok
	}, 30*time.Second, 100*time.Millisecond, "the event shows every delivery delivered")
	report(row{scenario: "kill -9 between record and starts", accepted: 3, delivered: delivered, duplicates: dups,
		effects: effects, dead: h.deadLetters(), lost: 3 - delivered, note: "1 of 3 started before the kill"})
}
