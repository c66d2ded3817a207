package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/hookd/hookd/internal/freeport"
)

// server is one throwaway PostgreSQL cluster.
type server struct {
	bin     binaries
	dir     string // holds data/, the log and the Unix socket
	port    int
	cred    *syscall.Credential // non-nil when running as root
	started bool
	durable bool // fsync, synchronous_commit and full_page_writes on
}

// newServer makes the server's directory. initdb refuses to run as root,
// so as root the directory is given to the "postgres" user (which the
// Debian package creates) and the server programs run as that user.
func newServer(bin binaries) (*server, error) {
	// Not t.TempDir: its parents are private to root, and the postgres user
	// must reach this directory.
	dir, err := os.MkdirTemp("", "hookd-pg-")
	if err != nil {
		return nil, err
	}
	s := &server{bin: bin, dir: dir}
	if os.Geteuid() != 0 {
		return s, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return s, fmt.Errorf("running as root needs the postgres user to run the server as: %w", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	if err := os.Chown(dir, int(uid), int(gid)); err != nil {
		return s, err
	}
	return s, nil
}

func (s *server) dataDir() string { return filepath.Join(s.dir, "data") }
func (s *server) logFile() string { return filepath.Join(s.dir, "server.log") }

func (s *server) url(database string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", User, s.port, database)
}

func (s *server) initdb() error {
	return s.run(s.bin.initdb, "-D", s.dataDir(), "-U", User, "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
}

// launch creates the cluster and starts it.
func (s *server) launch() error {
	if err := s.initdb(); err != nil {
		return err
	}
	return s.start()
}

// start starts the server on a free port, trying another port when the
// chosen one is taken in the meantime.
func (s *server) start() error {
	var errs []error
	for range 5 {
		port, err := freeport.Port("127.0.0.1")
		if err != nil {
			return err
		}
		s.port = port
		opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s", port, s.dir)
		if !s.durable {
			opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
		}
		err = s.run(s.bin.pgCtl, "start", "-D", s.dataDir(), "-l", s.logFile(), "-w", "-t", "30", "-o", opts)
		if err == nil {
			s.started = true
			return nil
		}
		errs = append(errs, fmt.Errorf("port %d: %w\n%s", port, err, s.logTail()))
	}
	return fmt.Errorf("start server: %w", errors.Join(errs...))
}

// stop stops the server at once (nothing in it is worth a checkpoint) and
// removes its directory.
func (s *server) stop() error {
	var err error
	if s.started {
		err = s.run(s.bin.pgCtl, "stop", "-D", s.dataDir(), "-m", "immediate", "-w")
	}
	return errors.Join(err, os.RemoveAll(s.dir))
}

func (s *server) run(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = s.dir
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), args[0], err, strings.TrimSpace(string(out)))
	}
	return nil
}

// logTail returns the end of the server log, to explain a failed start.
func (s *server) logTail() string {
	b, _ := os.ReadFile(s.logFile())
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
