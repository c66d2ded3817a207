package scaleout

import (
	"testing"

	"github.com/hookd/hookd/internal/testkit"
)

// buildHookd builds the hookd binary, once per test process.
func buildHookd(t *testing.T) string {
	t.Helper()
	bin, err := testkit.HookdBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
