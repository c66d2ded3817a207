package scaleout

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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

// proc is a hookd child process whose stderr goes to a log file.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error // exit status, once done is closed
}

// startProc starts bin with args and env (on top of a clean environment:
// the parent's HOOKD_* and TEMPORAL_* are dropped). A line on stdout
// containing ready, if not empty, is awaited.
func startProc(t *testing.T, bin, name string, env []string, ready string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, log: filepath.Join(t.TempDir(), name+".log"), done: make(chan struct{})}
	logf, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(cleanEnv(), env...)
	p.cmd.Stderr = logf
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		p.err = p.cmd.Wait()
		_ = logf.Close()
		close(p.done)
	}()
	t.Cleanup(func() { p.stop(t, 15*time.Second) })
	if ready == "" {
		return p
	}
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, ready) {
				return p
			}
		case <-p.done:
			t.Fatalf("%s exited before ready: %v\n%s", name, p.err, p.tail())
		case <-timeout:
			t.Fatalf("%s not ready after 2m\n%s", name, p.tail())
		}
	}
}

// stop sends SIGTERM and waits up to grace, then kills; it returns the
// exit error (nil for a clean exit) and whether it exited in time.
func (p *proc) stop(t *testing.T, grace time.Duration) (error, bool) {
	select {
	case <-p.done:
		return p.err, true
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.err, true
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Logf("%s ignored SIGTERM for %s; killed\n%s", p.name, grace, p.tail())
		return p.err, false
	}
}

// kill9 kills the process at once, as a crashed node would die.
func (p *proc) kill9() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// tail returns the end of the process's log.
func (p *proc) tail() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return fmt.Sprintf("--- %s log (%s) ---\n%s", p.name, p.log, b)
}

func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOOKD_") && !strings.HasPrefix(kv, "TEMPORAL_") {
			env = append(env, kv)
		}
	}
	return env
}

// waitReady polls url until it answers 200.
func waitReady(t *testing.T, p *proc, url string, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited: %v\n%s", p.name, p.err, p.tail())
		case <-ctx.Done():
			t.Fatalf("%s not ready at %s within %s\n%s", p.name, url, within, p.tail())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
