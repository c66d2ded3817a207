// Package testkit is what hookd's tests that run hookd share: a free
// loopback address for a server that binds its own port, the hookd
// binary built once per test process and its child processes (Proc),
// CAs that issue test certificates, and a Temporal client whose server
// is down (DownTemporal). Only tests import it (the layout test keeps it out of
// the product).
package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hookd/hookd/internal/freeport"
)

// FreeAddr returns a loopback address no one listens on, for a server that
// binds its own port (a child process, the embedded Temporal frontend),
// drawn by internal/freeport: below the ephemeral range, and once per
// machine. Its port is closed before it is handed over, so a server in
// this process should take a listener on 127.0.0.1:0 instead and keep it.
func FreeAddr(t testing.TB) string {
	t.Helper()
	addr, err := FreeAddrErr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// FreeAddrErr is FreeAddr for code with no test to fail (a TestMain): it
// returns the error instead.
func FreeAddrErr() (string, error) { return freeport.Addr("127.0.0.1") }

var build struct {
	once sync.Once
	bin  string
	err  error
}

// HookdBinary builds cmd/hookd once per test process, into a directory of
// its own, and returns the binary's path; a TestMain may remove
// filepath.Dir(path) when its tests are done.
func HookdBinary() (string, error) {
	build.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			build.err = err
			return
		}
		dir, err := os.MkdirTemp("", "hookd-bin-")
		if err != nil {
			build.err = fmt.Errorf("build hookd: %w", err)
			return
		}
		bin := filepath.Join(dir, "hookd")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/hookd")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("build hookd: %w\n%s", err, out)
			return
		}
		build.bin = bin
	})
	return build.bin, build.err
}

// moduleRoot is the directory of hookd's go.mod, wherever the test runs.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find the module: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("find the module: not inside hookd's module")
	}
	return filepath.Dir(mod), nil
}
