//go:build histories

package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/common/dynamicconfig"
	temporalserver "go.temporal.io/server/temporal"
	"go.temporal.io/server/temporaltest"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/wake"
	"github.com/hookd/hookd/internal/workflows"
)

func init() { generator = true }

// script is how the generator's receiver answers each event.
func script(req delivery.Request, n int) delivery.Outcome {
	switch {
	case req.Redrive != nil, strings.HasPrefix(req.EventID, "evt_success"):
		return success
	case req.EventID == "evt_retry":
		return outcomes(retryable, retryable, success)(req, n)
	case strings.HasPrefix(req.EventID, "evt_failed"):
		return outcomes(retryable, permanent)(req, n)
	}
	return retryable
}

// TestGenerateHistories runs the interesting paths of both workflows for
// real, on an in-process Temporal server with fake activities, and saves
// their histories for TestReplay. It links the whole server, so it sits
// behind the histories build tag:
//
//	go test -tags histories ./internal/workflows/ -run TestGenerateHistories -update
//
// Regenerate only to add a path or after a versioned workflow change; a
// history recorded by an older workflow version must keep replaying.
func TestGenerateHistories(t *testing.T) {
	fakes := &fakeActivities{now: time.Now, outcome: script, retention: func(dl delivery.DeadLetter) time.Duration {
		if dl.Reason == delivery.StatusFailed {
			return 3 * time.Second
		}
		return time.Hour
	}}
	ctx, c, ts := recordOnServer(t, fakes)
	short := []time.Duration{time.Second, time.Second}

	// Delivered at once, and after two retries.
	run := startDelivery(ctx, t, c, newRequest("success", short))
	requireDelivered(ctx, t, run, 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histDeliverySuccess)
	run = startDelivery(ctx, t, c, newRequest("retry", []time.Duration{time.Second, time.Second, time.Second}))
	requireDelivered(ctx, t, run, 3)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histDeliveryRetry)

	// Exhausted, dead-lettered, redriven by a bare signal, delivered.
	req := newRequest("exhausted", short)
	run = startDelivery(ctx, t, c, req)
	requireFailed(ctx, t, run, delivery.StatusExhausted, 3)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histDeliveryExhausted)
	deadID := delivery.DeadLetterID(req.DeliveryID)
	_, err := c.WorkflowService().SignalWorkflowExecution(ctx, &workflowservice.SignalWorkflowExecutionRequest{
		Namespace:         ts.GetDefaultNamespace(),
		WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: deadID},
		SignalName:        delivery.SignalRedrive, // no Input, as `temporal workflow signal --name redrive` sends
		Identity:          "histories_test",
	})
	require.NoError(t, err)
	out := requireDeadLetterOutcome(ctx, t, c, deadID, "redriven")
	assert.Equal(t, "temporal signal", out.Redrive.By)
	saveHistory(ctx, t, c, deadID, "", histDeadLetterRedrive)
	redrivenRun := c.GetWorkflow(ctx, req.DeliveryID, "")
	requireDelivered(ctx, t, redrivenRun, 1)
	saveHistory(ctx, t, c, req.DeliveryID, "", histDeliveryRedriven)

	// Failed permanently on attempt 2; its dead letter expires.
	failedThenExpired(ctx, t, c, newRequest("failed", short), histDeliveryFailed, histDeadLetterExpired)

	// The circuit is open for two seconds: the first attempt is deferred,
	// the delivery waits it out, then delivers.
	fakes.setOpenUntil(time.Now().Add(2 * time.Second))
	run = startDelivery(ctx, t, c, newRequest("success-deferred", short))
	requireDelivered(ctx, t, run, 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histDeliveryCircuitOpenV0)

	// The circuit is open for an hour: the delivery waits until an
	// operator recovers the endpoint (the recover-ends-wait version; the
	// kept history was recorded before the wake-attempt change).
	for name, hist := range map[string]string{"success-recovered": histDeliveryRecovered, "success-wake-recovered": histDeliveryWakeRecovered, "success-wake-updated": histDeliveryWakeUpdated, "success-wake-durable": histDeliveryWakeDurable} {
		fakes.setOpenUntil(time.Now().Add(time.Hour))
		req = newRequest(name, short)
		run = startDelivery(ctx, t, c, req)
		require.Eventually(t, func() bool {
			var state delivery.Result
			v, err := c.QueryWorkflow(ctx, req.DeliveryID, "", delivery.QueryState)
			return err == nil && v.Get(&state) == nil && state.WaitReason != ""
		}, 10*time.Second, 50*time.Millisecond, "the first attempt is deferred")
		fakes.setOpenUntil(time.Time{})
		sig := delivery.RecoverSignal{By: "histories_test", Reason: "receiver fixed"}
		if hist == histDeliveryWakeUpdated || hist == histDeliveryWakeDurable {
			h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
				WorkflowID: req.DeliveryID, UpdateName: delivery.UpdateRecover, Args: []any{sig}, WaitForStage: client.WorkflowUpdateStageCompleted,
			})
			require.NoError(t, err)
			require.NoError(t, h.Get(ctx, nil))
		} else {
			require.NoError(t, c.SignalWorkflow(ctx, req.DeliveryID, "", delivery.SignalRecover, sig))
		}
		requireDelivered(ctx, t, run, 1)
		saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), hist)
	}

	// The same, recorded with the readable encoding (durations as
	// strings, the payload as JSON).
	failedThenExpired(ctx, t, c, newRequest("failed-readable", short), histDeliveryReadable, histDeadLetterReadable)
}

// failedThenExpired runs a delivery that fails permanently on attempt 2
// and saves its history, then that of its dead letter once it expired.
func failedThenExpired(ctx context.Context, t *testing.T, c client.Client, req delivery.Request, hist, deadHist string) {
	t.Helper()
	run := startDelivery(ctx, t, c, req)
	requireFailed(ctx, t, run, delivery.StatusFailed, 2)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), hist)
	deadID := delivery.DeadLetterID(req.DeliveryID)
	requireDeadLetterOutcome(ctx, t, c, deadID, "expired")
	saveHistory(ctx, t, c, deadID, "", deadHist)
}

// recordOn is where a generator records, when the test runs with
// -update (it is skipped otherwise): an in-process server (opts) and a
// worker running hookd's workflows and fakes, which it gives the server's
// client; ctx bounds the recording to two minutes.
func recordOn(t *testing.T, fakes *fakeActivities, opts ...temporaltest.TestServerOption) (context.Context, client.Client) {
	t.Helper()
	ctx, c, _ := recordOnServer(t, fakes, opts...)
	return ctx, c
}

// recordOnServer is recordOn that also returns the server.
func recordOnServer(t *testing.T, fakes *fakeActivities, opts ...temporaltest.TestServerOption) (context.Context, client.Client, *temporaltest.TestServer) {
	t.Helper()
	if !*update {
		t.Skip("run with -update to regenerate testdata/*.json")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ts := newHistoryServer(ctx, t, opts...)
	c := ts.GetDefaultClient()
	fakes.temporal = c
	ts.NewWorker(delivery.TaskQueue, func(r worker.Registry) {
		workflows.Register(r)
		fakes.register(r)
	})
	return ctx, c, ts
}

// newHistoryServer starts an in-process Temporal server with hookd's
// search attributes.
func newHistoryServer(ctx context.Context, t *testing.T, opts ...temporaltest.TestServerOption) *temporaltest.TestServer {
	t.Helper()
	ts := temporaltest.NewServer(append([]temporaltest.TestServerOption{temporaltest.WithT(t)}, opts...)...)
	_, err := ts.GetDefaultClient().OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: delivery.SearchAttributes(),
	})
	require.NoError(t, err)
	return ts
}

func startDelivery(ctx context.Context, t *testing.T, c client.Client, req delivery.Request) client.WorkflowRun {
	t.Helper()
	run, err := c.ExecuteWorkflow(ctx, delivery.StartOptions(req, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE), delivery.WorkflowDelivery, req)
	require.NoError(t, err)
	return run
}

func requireDelivered(ctx context.Context, t *testing.T, run client.WorkflowRun, attempts int) {
	t.Helper()
	var res delivery.Result
	require.NoError(t, run.Get(ctx, &res))
	assert.Equal(t, delivery.StatusDelivered, res.Status)
	assert.Len(t, res.Attempts, attempts)
}

func requireFailed(ctx context.Context, t *testing.T, run client.WorkflowRun, status delivery.Status, attempts int) {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, run.Get(ctx, nil), &appErr)
	assert.Equal(t, string(status), appErr.Type())
	var res delivery.Result
	require.NoError(t, appErr.Details(&res))
	assert.Len(t, res.Attempts, attempts)
}

func requireDeadLetterOutcome(ctx context.Context, t *testing.T, c client.Client, id, want string) delivery.DeadLetterOutcome {
	t.Helper()
	var out delivery.DeadLetterOutcome
	require.NoError(t, c.GetWorkflow(ctx, id, "").Get(ctx, &out))
	require.Equal(t, want, out.Outcome)
	return out
}

// saveHistory writes a closed run's whole history to testdata/name,
// unless that file exists: a recorded history is the evidence that runs
// of an older workflow version still replay, so it is kept (delete it to
// record it again).
func saveHistory(ctx context.Context, t *testing.T, c client.Client, id, runID, name string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join("testdata", name)); err == nil {
		t.Logf("kept %s", name)
		return
	}
	hist := &historypb.History{}
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		hist.Events = append(hist.Events, ev)
	}
	data, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(hist)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join("testdata", name), append(data, '\n'), 0o644))
	t.Logf("saved %s: %d events", name, len(hist.Events))
}

// TestGenerateDeferredHistories records the paths of a delivery that waits
// out its endpoint: deferred wake-ups, and runs that continue as new. Its
// server suggests continuing as new past 60 events, so a few wake-ups
// reach the suggestion. (testdata/delivery-deferred-v0.json was recorded
// the same way before the bounded-wait change, and must keep replaying.)
func TestGenerateDeferredHistories(t *testing.T) {
	dyn := dynamicconfig.NewMemoryClient()
	dyn.OverrideSetting(dynamicconfig.HistoryCountSuggestContinueAsNew, 60)
	dyn.OverrideSetting(dynamicconfig.ForceSearchAttributesCacheRefreshOnRead, true) // as temporaltest sets it
	fakes := &fakeActivities{now: time.Now, deferFor: time.Second,
		outcome: func(req delivery.Request, n int) delivery.Outcome {
			if req.DeliveryID == newRequest("wake-retry", nil).DeliveryID {
				return outcomes(retryable, success)(req, n)
			}
			return success
		},
		closed: func(req delivery.Request, n int) bool {
			switch req.DeliveryID {
			case newRequest("continued", nil).DeliveryID:
				return n <= 10
			case newRequest("wake-retry", nil).DeliveryID:
				return n <= 1
			}
			return n <= 3
		}}
	ctx, c := recordOn(t, fakes, temporaltest.WithBaseServerOptions(temporalserver.WithDynamicConfigClient(dyn)))

	// Deferred by the first attempt and two wake-ups, then delivered.
	run := startDelivery(ctx, t, c, newRequest("deferred", []time.Duration{time.Second}))
	requireDelivered(ctx, t, run, 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histDeliveryDeferred)

	// Deferred long enough to continue as new, then delivered.
	run = startDelivery(ctx, t, c, newRequest("continued", []time.Duration{time.Second}))
	requireDelivered(ctx, t, c.GetWorkflow(ctx, run.GetID(), ""), 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histDeliveryContinued)
	saveHistory(ctx, t, c, run.GetID(), "", histDeliveryContinuedLast)

	// After the wake-attempt change: woken twice while still closed, then
	// delivered by the wake-up attempt; and woken into a retryable failure
	// that Retry takes on along the schedule.
	run = startDelivery(ctx, t, c, newRequest("wake", []time.Duration{time.Second}))
	requireDelivered(ctx, t, run, 1)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histDeliveryWake)
	run = startDelivery(ctx, t, c, newRequest("wake-retry", []time.Duration{time.Second}))
	requireDelivered(ctx, t, run, 2)
	saveHistory(ctx, t, c, run.GetID(), run.GetRunID(), histDeliveryWakeRetry)
}

// TestGenerateWakeHistories records a wake-up: started by a recover,
// joined by a second, two pages of a backlog, the second look.
func TestGenerateWakeHistories(t *testing.T) {
	fakes := &fakeActivities{now: time.Now, outcome: script, wakePage: backlog(1500)}
	ctx, c := recordOn(t, fakes)
	w := wake.NewWaker(c, 500, time.Second)
	require.NoError(t, w.Wake(ctx, "ep_1", delivery.RecoverSignal{By: "histories_test", Reason: "receiver fixed", NotBefore: time.Now()}))
	require.NoError(t, w.Wake(ctx, "ep_1", delivery.RecoverSignal{By: "histories_test", Reason: "again"}))
	var res delivery.WakeResult
	require.NoError(t, c.GetWorkflow(ctx, delivery.WakeID("ep_1"), "").Get(ctx, &res))
	assert.GreaterOrEqual(t, res.Looks, 1)
	saveHistory(ctx, t, c, delivery.WakeID("ep_1"), "", histWake)
}
