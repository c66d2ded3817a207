package workflows_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The histories of deliveries ended by an expunge (changeExpunge),
// replayed by TestReplay with every other history.
const (
	histDeliveryExpungedWaiting = "delivery-expunged-waiting.json"
	histDeliveryExpungedAttempt = "delivery-expunged-attempt.json"
	// histTenantExpunge is a deleted tenant's expunge job over three
	// pages.
	histTenantExpunge = "tenant-expunge.json"
)

// Each recorded history carries a sealed body, the version marker and the
// expunged end, and no dead letter.
func TestExpungeHistoriesAreRecorded(t *testing.T) {
	for _, name := range []string{histDeliveryExpungedWaiting, histDeliveryExpungedAttempt} {
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
