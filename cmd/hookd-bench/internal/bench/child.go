package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// child is a hookd process the external bench started: its stderr goes to
// a log file in the run's temporary directory.
type child struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error // exit status, once done is closed
	// ready receives stdout lines until the process exits.
	lines chan string
}

// startChild starts bin with args and env on top of the bench's
// environment without its HOOKD_* and TEMPORAL_* variables. The child
// gets its own process group, so a Ctrl-C at the terminal reaches only the
// bench, which stops the children in order; and it is killed if the bench
// dies without stopping it.
func startChild(dir, bin, name string, env []string, args ...string) (*child, error) {
	c := &child{name: name, log: filepath.Join(dir, name+".log"), done: make(chan struct{}), lines: make(chan string, 64)}
	logf, err := os.Create(c.log)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c.cmd = exec.Command(bin, args...)
	c.cmd.Env = append(cleanEnv(os.Environ()), env...)
	c.cmd.Stderr = logf
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	if err := c.cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case c.lines <- sc.Text():
			default:
			}
		}
		c.err = c.cmd.Wait()
		_ = logf.Close()
		close(c.done)
	}()
	return c, nil
}

// pid is the child's process ID.
func (c *child) pid() int { return c.cmd.Process.Pid }

// waitLine waits until the child prints a line containing s.
func (c *child) waitLine(ctx context.Context, s string, within time.Duration) error {
	timeout := time.After(within)
	for {
		select {
		case l := <-c.lines:
			if strings.Contains(l, s) {
				return nil
			}
		case <-c.done:
			return fmt.Errorf("%s exited before it was running: %v\n%s", c.name, c.err, c.tail())
		case <-timeout:
			return fmt.Errorf("%s not running after %s\n%s", c.name, within, c.tail())
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", c.name, ctx.Err())
		}
	}
}

// waitReady polls url until it answers 200.
func (c *child) waitReady(ctx context.Context, url string, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("%s readyz: %w", c.name, err)
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-c.done:
			return fmt.Errorf("%s exited: %v\n%s", c.name, c.err, c.tail())
		case <-ctx.Done():
			return fmt.Errorf("%s not ready within %s: %w\n%s", c.name, within, ctx.Err(), c.tail())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// stop sends SIGTERM and waits up to grace, then kills the child. It
// returns an error if the child had to be killed or exited uncleanly.
func (c *child) stop(grace time.Duration) error {
	select {
	case <-c.done:
		return c.exitErr()
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		return c.exitErr()
	case <-time.After(grace):
		_ = c.cmd.Process.Kill()
		<-c.done
		return fmt.Errorf("%s ignored SIGTERM for %s; killed", c.name, grace)
	}
}

func (c *child) exitErr() error {
	if c.err != nil {
		return fmt.Errorf("%s: %w", c.name, c.err)
	}
	return nil
}

// tail returns the end of the child's log.
func (c *child) tail() string {
	b, _ := os.ReadFile(c.log)
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return fmt.Sprintf("--- %s log ---\n%s", c.name, b)
}

// cleanEnv drops HOOKD_* and TEMPORAL_* from env, so the children see only
// what the bench sets.
func cleanEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HOOKD_") && !strings.HasPrefix(kv, "TEMPORAL_") {
			out = append(out, kv)
		}
	}
	return out
}

// stopAll stops children in order, each with grace, and joins their errors.
func stopAll(grace time.Duration, cs ...*child) error {
	var errs []error
	for _, c := range cs {
		if c != nil {
			errs = append(errs, c.stop(grace))
		}
	}
	return errors.Join(errs...)
}
