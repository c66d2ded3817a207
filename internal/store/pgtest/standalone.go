package pgtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Server is a throwaway PostgreSQL server started outside a test, by a
// benchmark: the same server Start gives a test (its own temporary
// directory, 127.0.0.1 on a free port below 32768, no fsync), stopped
// and removed by Stop.
type Server struct {
	// URL is the server's "postgres" database, as Start returns it.
	URL string
	srv *server
}

// StartServer starts a PostgreSQL server from the machine's binaries (on
// PATH or under /usr/lib/postgresql/*/bin). The caller must call Stop,
// also when a later step fails.
func StartServer() (*Server, error) { return startServer(false) }

// StartDurableServer is StartServer with PostgreSQL's durability on
// (fsync, synchronous_commit and full_page_writes, as a production server
// runs), for a benchmark of the production path.
func StartDurableServer() (*Server, error) { return startServer(true) }

func startServer(durable bool) (*Server, error) {
	bin, err := findBinaries(debianBinaries)
	if err != nil {
		return nil, fmt.Errorf("%w; install the server with `apt-get install postgresql`", err)
	}
	srv, err := newServer(bin)
	if err != nil {
		if srv != nil {
			_ = srv.stop()
		}
		return nil, err
	}
	srv.durable = durable
	if err := srv.launch(); err != nil {
		_ = srv.stop()
		return nil, err
	}
	return &Server{URL: srv.url("postgres"), srv: srv}, nil
}

// PID is the postmaster's process ID, read from postmaster.pid in the
// data directory: the parent of every backend.
func (s *Server) PID() (int, error) {
	raw, err := os.ReadFile(filepath.Join(s.srv.dataDir(), "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("postmaster pid: %w", err)
	}
	line, _, _ := bytes.Cut(raw, []byte("\n"))
	pid, err := strconv.Atoi(string(bytes.TrimSpace(line)))
	if err != nil {
		return 0, fmt.Errorf("postmaster pid: %w", err)
	}
	return pid, nil
}

// Stop stops the server at once and removes its directory.
func (s *Server) Stop() error { return s.srv.stop() }
