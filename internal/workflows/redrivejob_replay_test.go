package workflows_test

import (
	"os"
	"path/filepath"
	"testing"
)

// histRedriveJob is a bulk redrive job of two pages, replayed by TestReplay
// with every other history.
const histRedriveJob = "redrivejob.json"

func TestRedriveJobHistoryIsRecorded(t *testing.T) {
	if _, err := os.Stat(filepath.Join("testdata", histRedriveJob)); err != nil {
		t.Fatalf("testdata/%s is missing: go test -tags histories ./internal/workflows/ -run TestGenerateRedriveJobHistory -update", histRedriveJob)
	}
}
