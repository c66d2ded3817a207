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

func TestRateLimitHistoryIsRecorded(t *testing.T) {
	if _, err := os.Stat(filepath.Join("testdata", histRateLimit)); err != nil {
		t.Fatalf("testdata/%s is missing: go test -tags histories ./internal/workflows/ -run TestGenerateRateLimitHistory -update", histRateLimit)
	}
}
