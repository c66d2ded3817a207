package layout

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestREADMEListsEveryPackage: the README's Layout table names every
// package of the module, and no package that is gone.
func TestREADMEListsEveryPackage(t *testing.T) {
	out, err := exec.Command("go", "list", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		pkgs = append(pkgs, strings.TrimPrefix(p, module+"/"))
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(string(readme), -1) {
		listed = append(listed, m[1])
	}
	for _, p := range pkgs {
		if !slices.Contains(listed, p) {
			t.Errorf("README's Layout table lacks %s", p)
		}
	}
	for _, l := range listed {
		if strings.Contains(l, "/") || strings.HasPrefix(l, "internal") || l == "apiclient" || l == "signing" || l == "receiver" {
			if !slices.Contains(pkgs, l) {
				t.Errorf("README's Layout table lists %s, which is no package", l)
			}
		}
	}
}
