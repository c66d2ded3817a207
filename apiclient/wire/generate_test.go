package wire

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// types.gen.go is what oapi-codegen makes of the OpenAPI document and
// overlay.yaml now: regenerated into a temporary directory, it is the
// same bytes.
func TestGeneratedTypesAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oapi-codegen")
	}
	config, err := filepath.Abs("oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := filepath.Abs("../../internal/api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The configuration's output and overlay are relative to the working
	// directory.
	dir := t.TempDir()
	overlay, err := os.ReadFile("overlay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "overlay.yaml"), overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	tool, err := exec.Command("go", "tool", "-n", "oapi-codegen").Output() // built at go.mod's version
	if err != nil {
		t.Fatalf("go tool -n oapi-codegen: %v", err)
	}
	cmd := exec.Command(string(bytes.TrimSpace(tool)), "-config", config, spec)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, msg)
	}
	fresh, err := os.ReadFile(filepath.Join(dir, "types.gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("types.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Fatal("apiclient/wire/types.gen.go is stale: run make generate (or go generate ./apiclient/...) and commit it")
	}
}
