package testkit

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Proc is a child process of a test (the hookd binary, most often) that
// the test can stop, kill and start again with the same arguments and
// environment. Its stdout and stderr are kept in memory for readiness
// checks and the test's log.
type Proc struct {
	// Name names the process in failures and logs.
	Name string

	t         testing.TB
	bin       string
	args, env []string

	mu   sync.Mutex
	out  bytes.Buffer
	cmd  *exec.Cmd
	done chan struct{}
	err  error // the exit status, once done is closed
}

// StartProc starts bin with args and env on top of the test's environment
// (its HOOKD_* and TEMPORAL_* variables dropped, so the parent's settings
// never reach the child). The test's cleanup stops it (SIGTERM, SIGKILL
// after 15 s) and, if the test failed, logs the end of its output.
func StartProc(t testing.TB, name, bin string, env []string, args ...string) *Proc {
	t.Helper()
	p := &Proc{Name: name, t: t, bin: bin, args: args, env: env}
	p.Start()
	t.Cleanup(func() {
		p.Stop(15 * time.Second)
		if t.Failed() {
			t.Logf("%s", p.Tail())
		}
	})
	return p
}

// Start starts the process again, once it has stopped or been killed.
func (p *Proc) Start() {
	p.t.Helper()
	cmd := exec.Command(p.bin, p.args...)
	cmd.Env = append(cleanEnv(), p.env...)
	cmd.Stdout, cmd.Stderr = procOutput{p}, procOutput{p}
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("start %s: %v", p.Name, err)
	}
	done := make(chan struct{})
	p.mu.Lock()
	p.cmd, p.done, p.err = cmd, done, nil
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
}

// procOutput appends what the process writes to its Proc's output.
type procOutput struct{ p *Proc }

func (o procOutput) Write(b []byte) (int, error) {
	o.p.mu.Lock()
	defer o.p.mu.Unlock()
	return o.p.out.Write(b)
}

// Output is everything the process (every start of it) has written.
func (p *Proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// Tail is the end of Output, headed with the process's name.
func (p *Proc) Tail() string {
	out := p.Output()
	if len(out) > 6000 {
		out = out[len(out)-6000:]
	}
	return fmt.Sprintf("--- %s output ---\n%s", p.Name, out)
}

// running is the current start's command and its done channel.
func (p *Proc) running() (*exec.Cmd, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd, p.done
}

// exitErr is the exit status of the last start that ended.
func (p *Proc) exitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Stop sends SIGTERM and waits up to grace, then kills the process. It
// returns the exit error (nil for a clean exit) and whether the process
// exited within grace; a process already gone returns at once.
func (p *Proc) Stop(grace time.Duration) (error, bool) {
	cmd, done := p.running()
	select {
	case <-done:
		return p.exitErr(), true
	default:
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
		return p.exitErr(), true
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
		p.t.Logf("%s ignored SIGTERM for %s; killed", p.Name, grace)
		return p.exitErr(), false
	}
}

// Kill9 kills the process at once, as a crashed node dies, and waits for
// it to be gone.
func (p *Proc) Kill9() {
	cmd, done := p.running()
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

// Await polls ready every 100 ms until it holds; it fails the test if the
// process exits first or within passes, naming what it waited for.
func (p *Proc) Await(within time.Duration, what string, ready func() bool) {
	p.t.Helper()
	_, done := p.running()
	deadline := time.Now().Add(within)
	for !ready() {
		select {
		case <-done:
			p.t.Fatalf("%s exited (%v) before %s\n%s", p.Name, p.exitErr(), what, p.Tail())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: no %s within %s\n%s", p.Name, what, within, p.Tail())
		}
	}
}

// AwaitPrinted waits until the process has written line (Await).
func (p *Proc) AwaitPrinted(line string, within time.Duration) {
	p.t.Helper()
	p.Await(within, fmt.Sprintf("%q printed", line), func() bool { return strings.Contains(p.Output(), line) })
}

// AwaitOK waits until a GET of url answers 200 (Await).
func (p *Proc) AwaitOK(url string, within time.Duration) {
	p.t.Helper()
	p.Await(within, "200 from "+url, func() bool {
		resp, err := probeClient.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// probeClient asks AwaitOK's URL, each try bounded.
var probeClient = &http.Client{Timeout: 2 * time.Second}

// cleanEnv is the test's environment without HOOKD_* and TEMPORAL_*.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOOKD_") && !strings.HasPrefix(kv, "TEMPORAL_") {
			env = append(env, kv)
		}
	}
	return env
}
