package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLinksNoTestCode: the production binary links neither Temporal's
// test server (the benchmark's naive baseline uses it; it lives in
// cmd/hookd-bench) nor, through any hookd package, the testing package.
// testing itself is still listed: the Temporal SDK's client package and the
// server import it (go.temporal.io/sdk/internal/workflow_testsuite.go), so
// no binary that talks to Temporal can drop it.
func TestBinaryLinksNoTestCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 100 {
		t.Fatalf("go list -deps listed %d packages; expected hookd's full dependency graph", len(lines))
	}
	for _, line := range lines {
		pkg, imports, _ := strings.Cut(line, " ")
		if strings.HasPrefix(pkg, "go.temporal.io/server/temporaltest") {
			t.Errorf("cmd/hookd links %s", pkg)
		}
		if !strings.HasPrefix(pkg, "github.com/hookd/hookd") {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if imp == "testing" || strings.HasPrefix(imp, "go.temporal.io/server/temporaltest") {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}
