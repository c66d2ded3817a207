package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateConfigDoc = flag.Bool("update", false, "rewrite docs/configuration.md from the flag definitions")

// TestConfigurationDoc: docs/configuration.md lists every flag of the
// long-running commands as the command tree defines it. After changing a
// flag, rerun with -update to rewrite the file.
func TestConfigurationDoc(t *testing.T) {
	// The receiver's --db default lies under $HOOKD_DATA_DIR.
	t.Setenv("HOOKD_DATA_DIR", "")
	path := filepath.Join("..", "..", "docs", "configuration.md")
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := renderConfigDoc(string(old))
	if err != nil {
		t.Fatalf("docs/configuration.md: %v", err)
	}
	if *updateConfigDoc {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != string(old) {
		line, file, gen := firstDiffLine(string(old), want)
		t.Errorf("docs/configuration.md differs from the flag definitions at line %d:\n  file: %s\n  want: %s\nrerun with -update to rewrite it: go test ./internal/cli -run TestConfigurationDoc -update",
			line, file, gen)
	}
}

// firstDiffLine returns the number and text, in a and b, of the first line
// where a and b differ.
func firstDiffLine(a, b string) (int, string, string) {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return i + 1, x, y
		}
	}
	return 0, "", ""
}
