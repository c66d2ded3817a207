package embedded

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// DataDirCheckEvery is how often a DataDirGuard looks at the data dir.
const DataDirCheckEvery = time.Second

// ErrDataDirGone is the error of a DataDirGuard whose data dir, or a file
// it guards, was deleted or replaced under the running process.
var ErrDataDirGone = errors.New("data dir deleted or replaced under the running process")

// DataDirGuard notices the data dir, or a database or key file in it,
// being deleted or replaced while the process runs: each is compared,
// by inode (os.SameFile), with what was there when the guard started.
// SQLite keeps writing to a deleted file through its open descriptor, so
// whatever is accepted after that is lost at the next start; the guard's
// Err lets readiness and ingest say so instead. Once failed it stays
// failed: a file put back is not the one the process writes.
type DataDirGuard struct {
	dir   string
	paths []string
	want  []os.FileInfo
	log   *slog.Logger

	mu   sync.Mutex
	err  error
	stop chan struct{}
	done chan struct{}
}

// GuardDataDir starts guarding dir and the files of names in it that
// exist now, checking every DataDirCheckEvery.
func GuardDataDir(dir string, names []string, log *slog.Logger) (*DataDirGuard, error) {
	return guardDataDir(dir, names, DataDirCheckEvery, log)
}

func guardDataDir(dir string, names []string, every time.Duration, log *slog.Logger) (*DataDirGuard, error) {
	if log == nil {
		log = slog.Default()
	}
	g := &DataDirGuard{dir: dir, log: log, stop: make(chan struct{}), done: make(chan struct{})}
	for _, p := range append([]string{dir}, names...) {
		if p != dir {
			p = filepath.Join(dir, p)
		}
		info, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) && p != dir {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("guard data dir: %w", err)
		}
		g.paths, g.want = append(g.paths, p), append(g.want, info)
	}
	go g.run(every)
	return g, nil
}

func (g *DataDirGuard) run(every time.Duration) {
	defer close(g.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-tick.C:
			if g.check() != nil {
				return
			}
		}
	}
}

// check compares every guarded path with what it was, once.
func (g *DataDirGuard) check() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return g.err
	}
	for i, p := range g.paths {
		info, err := os.Stat(p)
		if err == nil && os.SameFile(info, g.want[i]) {
			continue
		}
		what := "replaced"
		if err != nil {
			what = "missing"
		}
		g.err = fmt.Errorf("%w: %s is %s (stop hookd, restore the data dir or start afresh)", ErrDataDirGone, rel(g.dir, p), what)
		g.log.Error("data dir gone: readiness and ingest fail until a restart", "data_dir", g.dir, "path", rel(g.dir, p), "state", what)
		return g.err
	}
	return nil
}

// Err is nil while the data dir and its files are the ones the process
// started with, else an ErrDataDirGone naming the first one that is not.
// A nil guard (no data dir) is always fine.
func (g *DataDirGuard) Err() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// Close stops the checks. A nil guard closes as a no-op.
func (g *DataDirGuard) Close() {
	if g == nil {
		return
	}
	select {
	case <-g.stop:
	default:
		close(g.stop)
	}
	<-g.done
}
