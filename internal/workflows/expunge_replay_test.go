package workflows_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The histories of deliveries ended by an expunge (changeExpunge),
// replayed by TestReplay with every other history.
const (
	histDeliveryExpungedWaiting = "delivery-expunged-waiting.json"
	histDeliveryExpungedAttempt = "delivery-expunged-attempt.json"
	// histDeliveryExpungedOld is the expunge of an event from before
	// per-event keys (its body sealed by the payload codec alone), whose
	// delivery waited for its second attempt.
	histDeliveryExpungedOld = "delivery-expunged-old.json"
	// histTenantExpunge is a deleted tenant's expunge job over three
	// pages.
	histTenantExpunge = "tenant-expunge.json"
)

// Each recorded history carries a sealed body, the version marker and the
// expunged end, and no dead letter.
func TestExpungeHistoriesAreRecorded(t *testing.T) {
	for _, name := range []string{histDeliveryExpungedWaiting, histDeliveryExpungedAttempt, histDeliveryExpungedOld} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatalf("testdata/%s is missing: go test -tags histories ./internal/workflows/ -run TestGenerateExpungeHistories -update", name)
		}
		require.True(t, json.Valid(raw), name)
		s := string(raw)
		require.Contains(t, s, `"markerName": "Version"`, name)
		require.Contains(t, s, `"type": "expunged"`, name)
		require.NotContains(t, s, `"name": "DeadLetter"`, name)
	}
}

// The old event's history starts as a delivery from before changeExpunge
// did: its input carries the body itself, no sealed body, and up to the
// expunge signal its events are those of delivery-retry-success.json,
// recorded by a worker from before the change. After the signal it takes
// the change and ends expunged (TestReplay replays it).
func TestExpungeOldHistoryStartsAsBefore(t *testing.T) {
	old := historyEvents(t, histDeliveryExpungedOld)
	before := historyEvents(t, histDeliveryRetry)
	signal := slices.IndexFunc(old, func(e historyEvent) bool { return e.EventType == "EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED" })
	require.Positive(t, signal)
	require.GreaterOrEqual(t, len(before), signal)
	for i := range signal {
		require.Equal(t, before[i].EventType, old[i].EventType, "event %d", i+1)
	}
	in := old[0].Started.Input.Payloads[0].Data
	require.Contains(t, string(in), `"payload":{"test":"expunged_old"}`)
	require.NotContains(t, string(in), "sealed_body")
	require.Equal(t, "EVENT_TYPE_WORKFLOW_EXECUTION_FAILED", old[len(old)-1].EventType)
}

// historyEvent is what TestExpungeOldHistoryStartsAsBefore reads of a
// recorded history's event.
type historyEvent struct {
	EventType string `json:"eventType"`
	Started   struct {
		Input struct {
			Payloads []struct {
				Data []byte `json:"data"`
			} `json:"payloads"`
		} `json:"input"`
	} `json:"workflowExecutionStartedEventAttributes"`
}

func historyEvents(t *testing.T, name string) []historyEvent {
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var h struct {
		Events []historyEvent `json:"events"`
	}
	require.NoError(t, json.Unmarshal(raw, &h))
	return h.Events
}
