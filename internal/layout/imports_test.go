package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/hookd/hookd"

// pkg is what `go list -json` says of one package.
type pkg struct {
	ImportPath string
	Standard   bool
	Imports    []string
}

// listPackages lists every package of the module and every package they
// import, transitively, with their direct imports.
func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard,Imports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list: %v", err)
		}
		pkgs[p.ImportPath] = p
	}
	if len(pkgs) < 100 {
		t.Fatalf("go list listed %d packages; expected hookd's whole graph", len(pkgs))
	}
	return pkgs
}

// reachable is every package path imports, transitively, including path.
func reachable(pkgs map[string]pkg, path string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, imp := range pkgs[p].Imports {
			walk(imp)
		}
	}
	walk(path)
	var all []string
	for p := range seen {
		all = append(all, p)
	}
	slices.Sort(all)
	return all
}

func own(path string) bool { return path == module || strings.HasPrefix(path, module+"/") }

func under(path, dir string) bool {
	return path == module+"/"+dir || strings.HasPrefix(path, module+"/"+dir+"/")
}

// rule is one promise about imports: no package the subject reaches (or,
// with direct, imports itself) may satisfy banned.
type rule struct {
	subject string
	why     string
	direct  bool
	banned  func(p pkg) bool
}

// rules are the promises of the package docs and docs/architecture.md.
var rules = []rule{
	{
		subject: "internal/workflows",
		why:     "workflows are deterministic orchestration: no store, API, activities or net/http in any hookd package they reach",
		banned: func(p pkg) bool {
			if !own(p.ImportPath) {
				return false
			}
			return under(p.ImportPath, "internal/store") || under(p.ImportPath, "internal/api") ||
				under(p.ImportPath, "internal/activities") || slices.Contains(p.Imports, "net/http")
		},
	},
	{
		subject: "internal/activities",
		why:     "activities do the I/O and never import the API",
		banned:  func(p pkg) bool { return under(p.ImportPath, "internal/api") || under(p.ImportPath, "internal/portal") },
	},
	{
		subject: "internal/api",
		why:     "the API starts workflows and reads their state through the Temporal client; it never calls activities",
		banned: func(p pkg) bool {
			return under(p.ImportPath, "internal/activities") || under(p.ImportPath, "internal/workflows")
		},
	},
	{
		subject: "signing",
		why:     "a receiver imports signing without pulling in anything but the standard library",
		banned:  func(p pkg) bool { return !standard(p) && p.ImportPath != module+"/signing" },
	},
	{
		subject: "apiclient",
		why:     "any Go program calls hookd through apiclient without pulling in anything but the standard library (apiclient/wire, its generated types, is held to the same rule)",
		banned:  func(p pkg) bool { return !standard(p) && !under(p.ImportPath, "apiclient") },
	},
	{
		subject: "receiver",
		why:     "the receiver kit imports signing and database/sql, nothing of the sender and not Temporal",
		banned:  receiverBanned,
	},
	{
		subject: "receiver/reference",
		why:     "the reference receiver imports the receiver kit, nothing of the sender and not Temporal",
		banned:  receiverBanned,
	},
}

// standard reports whether p is the standard library's (cgo's "C"
// pseudo-package, which net imports, counts as standard).
func standard(p pkg) bool { return p.Standard || p.ImportPath == "C" }

func receiverBanned(p pkg) bool {
	if strings.HasPrefix(p.ImportPath, "go.temporal.io/") {
		return true
	}
	return own(p.ImportPath) && !under(p.ImportPath, "signing") && !under(p.ImportPath, "receiver")
}

// TestImportRules checks each rule against the module's import graph.
func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	for _, r := range rules {
		path := module + "/" + r.subject
		if _, ok := pkgs[path]; !ok {
			t.Errorf("%s: no such package (the rule names a package that moved?)", r.subject)
			continue
		}
		var bad []string
		for _, dep := range reachable(pkgs, path) {
			p := pkgs[dep]
			p.ImportPath = dep // "C" is imported but never listed
			if r.banned(p) {
				bad = append(bad, dep)
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s reaches %d forbidden packages (%s): %s", r.subject, len(bad), strings.Join(bad[:min(len(bad), 3)], ", "), r.why)
		}
	}
}

// TestNothingImportsCommands: a command's packages belong to that command;
// nothing outside cmd/X imports cmd/X or what is under it.
func TestNothingImportsCommands(t *testing.T) {
	for path, p := range listPackages(t) {
		for _, imp := range p.Imports {
			rest, ok := strings.CutPrefix(imp, module+"/cmd/")
			if !ok {
				continue
			}
			command := module + "/cmd/" + strings.SplitN(rest, "/", 2)[0]
			if path != command && !strings.HasPrefix(path, command+"/") {
				t.Errorf("%s imports %s: nothing imports a command", path, imp)
			}
		}
	}
}

// TestBinaryLinksNoTestCode: the production binary links neither
// Temporal's test server (the benchmark's naive baseline uses it; it lives
// in cmd/hookd-bench) nor, through any hookd package, the testing package.
// testing itself is still linked: the Temporal SDK's client package and
// the server import it, so no binary that talks to Temporal can drop it.
func TestBinaryLinksNoTestCode(t *testing.T) {
	pkgs := listPackages(t)
	for _, dep := range reachable(pkgs, module+"/cmd/hookd") {
		if strings.HasPrefix(dep, "go.temporal.io/server/temporaltest") {
			t.Errorf("cmd/hookd links %s", dep)
		}
		if !own(dep) {
			continue
		}
		for _, imp := range pkgs[dep].Imports {
			if imp == "testing" || strings.HasPrefix(imp, "go.temporal.io/server/temporaltest") {
				t.Errorf("%s imports %s", dep, imp)
			}
		}
	}
}
