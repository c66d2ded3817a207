package workflows_test

import (
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/workflows"
)

var update = flag.Bool("update", false, "regenerate testdata/*.json (needs -tags histories)")

// generator is true when TestGenerateHistories is built in.
var generator bool

// Histories under testdata/, recorded by TestGenerateHistories and
// replayed by TestReplay.
const (
	histDeliverySuccess   = "delivery-success.json"          // delivered on the first attempt
	histDeliveryRetry     = "delivery-retry-success.json"    // delivered on attempt 3
	histDeliveryExhausted = "delivery-exhausted.json"        // 3 attempts, then dead-lettered
	histDeadLetterRedrive = "deadletter-redriven.json"       // redrive signal without payload
	histDeliveryRedriven  = "delivery-redriven-success.json" // the redriven run, delivered
	histDeliveryFailed    = "delivery-failed.json"           // 404 on attempt 2, dead-lettered
	histDeadLetterExpired = "deadletter-expired.json"        // retention ran out
	// Recorded before the recover-ends-wait and bounded-wait changes.
	histDeliveryCircuitOpenV0 = "delivery-circuit-open-v0.json" // first attempt deferred by an open circuit, delivered
	// Recorded before the bounded-wait change: each wake-up of a deferred
	// delivery re-ran the Retry activity.
	histDeliveryDeferredV0 = "delivery-deferred-v0.json" // deferred 3 times, delivered
	// Recorded after it: wake-ups ask Admit; runs continue as new when
	// the server suggests it.
	histDeliveryDeferred      = "delivery-deferred.json"       // deferred 3 times, delivered
	histDeliveryContinued     = "delivery-continued.json"      // deferred until it continued as new
	histDeliveryContinuedLast = "delivery-continued-last.json" // the last run of it, delivered
	// A recover signal ended the wait: before the bounded-wait change, and
	// after it (the wake-up asks Admit, recorded with the readable encoding).
	histDeliveryRecoveredV0 = "delivery-recovered-v0.json"
	histDeliveryRecovered   = "delivery-recovered.json"
	// Recorded after the wake-attempt change: a deferred delivery's
	// wake-up attempts in a local activity (WakeAttempt).
	histDeliveryWake          = "delivery-wake.json"           // deferred by the first attempt and two wake-ups, delivered
	histDeliveryWakeRetry     = "delivery-wake-retry.json"     // woken, failed retryably, delivered by Retry
	histDeliveryWakeRecovered = "delivery-wake-recovered.json" // a recover signal ended the wait
	histDeliveryWakeUpdated   = "delivery-wake-updated.json"   // a recover update ended the wait
	// Recorded after the durable-wake change: the recover update's
	// acceptance is written (a millisecond's timer) before the attempt,
	// and the update completes after it.
	histDeliveryWakeDurable = "delivery-wake-durable.json"
	// A wake-up of an endpoint's waiting deliveries: started, joined,
	// two pages, the second look.
	histWake = "wake.json"
	// Recorded with durations as strings and the payload as JSON (the
	// histories above hold nanoseconds and the body as a string).
	histDeliveryReadable   = "delivery-failed-readable.json"
	histDeadLetterReadable = "deadletter-expired-readable.json"
)

var histories = []string{
	histDeliverySuccess, histDeliveryRetry, histDeliveryExhausted, histDeadLetterRedrive,
	histDeliveryRedriven, histDeliveryFailed, histDeadLetterExpired, histDeliveryDeferredV0,
	histDeliveryDeferred, histDeliveryContinued, histDeliveryContinuedLast, histDeliveryCircuitOpenV0,
	histDeliveryRecoveredV0, histDeliveryRecovered, histDeliveryReadable, histDeadLetterReadable,
	histDeliveryWake, histDeliveryWakeRetry, histDeliveryWakeRecovered, histDeliveryWakeUpdated,
	histDeliveryWakeDurable, histWake, histDeliveryExpungedWaiting, histDeliveryExpungedAttempt,
	histDeliveryExpungedOld, histTenantExpunge,
}

// replay replays a recorded history against the workflows register registers.
func replay(t *testing.T, file string, register func(worker.WorkflowReplayer)) error {
	t.Helper()
	r := worker.NewWorkflowReplayer()
	register(r)
	logger := log.NewStructuredLogger(slog.New(slog.DiscardHandler))
	return r.ReplayWorkflowHistoryFromJSONFile(logger, file)
}

// TestReplay replays every recorded history against the current workflows:
// it fails when a workflow change is not deterministic for runs already in
// flight. Regenerate with -update only after versioning such a change.
func TestReplay(t *testing.T) {
	if *update && !generator {
		t.Fatal("-update needs the generator: go test -tags histories ./workflows/ -run TestGenerateHistories -update")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	for _, want := range histories {
		assert.True(t, slices.Contains(names, want), "testdata/%s is missing; run with -update", want)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			require.NoError(t, replay(t, f, func(r worker.WorkflowReplayer) { workflows.Register(r) }))
		})
	}
}

// TestReplayDetectsNonDeterminism shows the replay test can fail: a
// Delivery that sleeps before its first attempt does not match history.
func TestReplayDetectsNonDeterminism(t *testing.T) {
	changed := func(ctx workflow.Context, req delivery.Request) (delivery.Result, error) {
		if err := workflow.Sleep(ctx, time.Second); err != nil {
			return delivery.Result{}, err
		}
		return workflows.Delivery(ctx, req)
	}
	for _, name := range []string{histDeliverySuccess, histDeliveryExhausted} {
		file := filepath.Join("testdata", name)
		if _, err := os.Stat(file); err != nil {
			t.Fatalf("%s: %v; run with -update", file, err)
		}
		err := replay(t, file, func(r worker.WorkflowReplayer) {
			r.RegisterWorkflowWithOptions(changed, workflow.RegisterOptions{Name: delivery.WorkflowDelivery})
		})
		assert.Error(t, err, name)
	}
}
