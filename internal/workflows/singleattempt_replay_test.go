package workflows_test

import (
	"os"
	"path/filepath"
	"testing"
)

// histSingleAttempt is a test event's delivery that ended after its one
// failed attempt, replayed by TestReplay with every other history.
const histSingleAttempt = "delivery-single-attempt.json"

func TestSingleAttemptHistoryIsRecorded(t *testing.T) {
	if _, err := os.Stat(filepath.Join("testdata", histSingleAttempt)); err != nil {
		t.Fatalf("testdata/%s is missing: go test -tags histories ./internal/workflows/ -run TestGenerateSingleAttemptHistory -update", histSingleAttempt)
	}
}
