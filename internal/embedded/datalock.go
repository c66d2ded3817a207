package embedded

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// dataLockName is the file in the data dir a running server holds an
// exclusive lock on, with its process ID written in it.
const dataLockName = "temporal.lock"

// ErrDataDirInUse is the error of a start on a data dir another running
// process serves from.
var ErrDataDirInUse = errors.New("in use by another hookd process")

// dataLock is a held lock on a data dir; Release gives it up (the kernel
// does when the process exits, however it exits).
type dataLock struct{ f *os.File }

// lockDataDir takes the data dir's lock without waiting. Two servers on
// the same SQLite files would each own every history shard and take them
// from each other at every write, and two hookd processes would share
// one endpoint store: the second start fails with ErrDataDirInUse,
// naming the holder's process ID. On a file system that cannot lock
// (the lock call fails otherwise) the start goes on with a warning: a
// second process there is not detected.
func lockDataDir(dir string, log *slog.Logger) (*dataLock, error) {
	if err := os.MkdirAll(dir, DataDirMode); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	path := filepath.Join(dir, dataLockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, DataFileMode)
	if err != nil {
		return nil, fmt.Errorf("data dir %s: open its lock: %w", dir, err)
	}
	held, err := tryLock(f)
	if err != nil {
		log.Warn("data dir: cannot be locked; a second hookd process on it would not be refused", "path", path, "error", err)
		return &dataLock{f: f}, nil
	}
	if !held {
		b, _ := os.ReadFile(path)
		f.Close()
		holder := strings.TrimSpace(string(b))
		if holder == "" {
			holder = "unknown"
		}
		return nil, fmt.Errorf("data dir %s is %w (pid %s): stop it, or give this one a data dir of its own", dir, ErrDataDirInUse, holder)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dataLock{f: f}, nil
}

// Release gives the lock up; nil releases nothing.
func (l *dataLock) Release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
