package workflows_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// histRecoveredEvent is a delivery delivered on attempt 3 that announced
// it through DeliveryRecovered, replayed by TestReplay with every other
// history.
const histRecoveredEvent = "delivery-recovered-event.json"

// The recorded history holds the version marker and the announcement.
func TestRecoveredEventHistoryIsRecorded(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", histRecoveredEvent))
	if err != nil {
		t.Fatalf("testdata/%s is missing: go test -tags histories ./internal/workflows/ -run TestGenerateRecoveredEventHistory -update", histRecoveredEvent)
	}
	require.True(t, json.Valid(raw))
	require.Contains(t, string(raw), `"markerName": "Version"`, "the version marker")
	require.Equal(t, 1, strings.Count(string(raw), `"name": "DeliveryRecovered"`), "the announcement, once")
}
