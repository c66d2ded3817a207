package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ReceiverCommand is the argument that makes hookd-bench a receiver
// process (ServeReceiver).
const ReceiverCommand = "receiver"

// ServeReceiver is a receiver in a process of its own, as a webhook
// receiver is a system of its own: a machine saturated by the process
// being measured then delays the receiver's reads as the operating system
// schedules a separate process, not behind that process's goroutines. It
// prints its URL on out, then one line per request it answered 200,
// "<unix ns> <event ID>", stamped when the request was read, and serves
// until ctx ends.
func ServeReceiver(ctx context.Context, out io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("receiver: %w", err)
	}
	w := bufio.NewWriter(out)
	var mu sync.Mutex
	line := func(s string) error {
		mu.Lock()
		defer mu.Unlock()
		if _, err := w.WriteString(s + "\n"); err != nil {
			return err
		}
		return w.Flush()
	}
	if err := line("http://" + ln.Addr().String() + "/hook"); err != nil {
		return fmt.Errorf("receiver: %w", err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		now := time.Now()
		_ = line(strconv.FormatInt(now.UnixNano(), 10) + " " + r.Header.Get(headerEventID))
		rw.WriteHeader(http.StatusOK)
	})}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("receiver: %w", err)
	}
	return nil
}

// startReceiverProcess starts a receiver in a process of its own (this
// command, with ReceiverCommand) and records what it reports: the
// returned receiver reads as one in this process does, with each
// arrival's time as the other process stamped it. Its close stops the
// process. The process's CPU is not this process's: where one phase's
// figures compare CPU, every receiver of the phase runs this way.
func startReceiverProcess() (*receiver, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("receiver process: %w", err)
	}
	cmd := exec.Command(self, ReceiverCommand)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("receiver process: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("receiver process: %w", err)
	}
	rc := &receiver{first: map[string]time.Time{}}
	rc.stop = func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
	if err := rc.follow(stdout); err != nil {
		rc.stop()
		return nil, fmt.Errorf("receiver process: %w", err)
	}
	return rc, nil
}

// follow reads what a ServeReceiver prints on r: its URL, which it sets,
// and then, until r ends, each request it answered, which it records.
func (rc *receiver) follow(r io.Reader) error {
	sc := bufio.NewScanner(r)
	if !sc.Scan() {
		return fmt.Errorf("no URL: %v", sc.Err())
	}
	rc.URL = sc.Text()
	go func() {
		for sc.Scan() {
			ns, id, ok := strings.Cut(sc.Text(), " ")
			at, err := strconv.ParseInt(ns, 10, 64)
			if !ok || err != nil {
				continue
			}
			rc.record(id, time.Unix(0, at))
		}
	}()
	return nil
}
