// Package pgtest starts throwaway PostgreSQL servers for tests, from the
// machine's PostgreSQL binaries (Debian: `apt-get install postgresql`). Each
// server lives in its own temporary directory, listens only on 127.0.0.1 on
// a free port below 32768 (Temporal's schema stores ports as SMALLINT), runs
// without fsync, and stops when the test ends.
//
// When the binaries are missing, Start fails the test naming the package to
// install, unless HOOKD_SKIP_POSTGRES=1 skips it.
package pgtest

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// SkipEnv is the environment variable that, set to 1, skips PostgreSQL
// tests on machines without PostgreSQL.
const SkipEnv = "HOOKD_SKIP_POSTGRES"

// User is the superuser of the servers Start creates; it needs no password.
const User = "hookd"

// Start starts a PostgreSQL server for the test and returns the URL of its
// "postgres" database, e.g.
// postgres://hookd@127.0.0.1:24321/postgres?sslmode=disable.
func Start(t testing.TB) string {
	t.Helper()
	return start(t, debianBinaries)
}

// debianBinaries is where Debian's postgresql package installs the server
// programs, without putting them on PATH.
const debianBinaries = "/usr/lib/postgresql/*/bin"

func start(t testing.TB, searchGlob string) string {
	t.Helper()
	bin, err := findBinaries(searchGlob)
	if err != nil {
		if os.Getenv(SkipEnv) == "1" {
			t.Skipf("PostgreSQL: %v (skipped: %s=1)", err, SkipEnv)
		}
		t.Fatalf("PostgreSQL: %v; install the server with `apt-get install postgresql` (or set %s=1 to skip)", err, SkipEnv)
	}
	srv, err := newServer(bin)
	if err != nil {
		t.Fatalf("PostgreSQL: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.stop(); err != nil {
			t.Errorf("PostgreSQL: %v", err)
		}
	})
	if err := srv.launch(); err != nil {
		t.Fatalf("PostgreSQL: %v", err)
	}
	return srv.url("postgres")
}

var names atomic.Int64

// NewDatabase creates an empty database on the server of serverURL (from
// Start) and returns its URL, so that tests can share one server. It takes
// about 0.1–0.5 s; NewSchema is much faster.
func NewDatabase(t testing.TB, serverURL string) string {
	t.Helper()
	return create(t, serverURL, "DATABASE", func(u *url.URL, name string) { u.Path = "/" + name })
}

// NewSchema creates an empty schema in the database of serverURL and
// returns a URL whose connections put it first on their search_path, so
// that unqualified tables are created and found there. It takes about a
// millisecond.
func NewSchema(t testing.TB, serverURL string) string {
	t.Helper()
	return create(t, serverURL, "SCHEMA", func(u *url.URL, name string) {
		q := u.Query()
		q.Set("search_path", name)
		u.RawQuery = q.Encode()
	})
}

// create creates a uniquely named object of kind and returns serverURL as
// changed by point to use it.
func create(t testing.TB, serverURL, kind string, point func(u *url.URL, name string)) string {
	t.Helper()
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatalf("PostgreSQL: parse server URL: %v", err)
	}
	name := fmt.Sprintf("test_%d_%d", os.Getpid(), names.Add(1))
	db, err := sql.Open("pgx", serverURL)
	if err != nil {
		t.Fatalf("PostgreSQL: %v", err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE " + kind + " " + name); err != nil {
		t.Fatalf("PostgreSQL: create %s: %v", strings.ToLower(kind), err)
	}
	point(u, name)
	return u.String()
}

// binaries locates the server programs a test needs.
type binaries struct{ initdb, pgCtl string }

// findBinaries looks on PATH, then in the newest directory that matches
// searchGlob.
func findBinaries(searchGlob string) (binaries, error) {
	initdb, err1 := exec.LookPath("initdb")
	pgCtl, err2 := exec.LookPath("pg_ctl")
	if err1 == nil && err2 == nil {
		return binaries{initdb: initdb, pgCtl: pgCtl}, nil
	}
	dirs, _ := filepath.Glob(searchGlob)
	slices.SortFunc(dirs, func(a, b string) int { return versionOf(b) - versionOf(a) })
	for _, dir := range dirs {
		b := binaries{initdb: filepath.Join(dir, "initdb"), pgCtl: filepath.Join(dir, "pg_ctl")}
		if isExecutable(b.initdb) && isExecutable(b.pgCtl) {
			return b, nil
		}
	}
	return binaries{}, fmt.Errorf("initdb and pg_ctl are neither on PATH nor in %s", searchGlob)
}

// versionOf returns the major version in /usr/lib/postgresql/<major>/bin.
func versionOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
