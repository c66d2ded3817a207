package workflows_test

import (
	"os"
	"path/filepath"
	"testing"
)

// histRateLimit is a delivery that waited for its rate limit's slot and
// was delivered in it (versionRateSlot), replayed by TestReplay with
// every other history.
const histRateLimit = "delivery-rate-limit.json"

// histRateSlotStart is a delivery started delayed to the slot ingest
// reserved, delivered in it by its first attempt.
const histRateSlotStart = "delivery-rate-slot-start.json"

func TestRateLimitHistoryIsRecorded(t *testing.T) {
	for name, generator := range map[string]string{histRateLimit: "TestGenerateRateLimitHistory", histRateSlotStart: "TestGenerateRateSlotStartHistory"} {
		if _, err := os.Stat(filepath.Join("testdata", name)); err != nil {
			t.Errorf("testdata/%s is missing: go test -tags histories ./internal/workflows/ -run %s -update", name, generator)
		}
	}
}
