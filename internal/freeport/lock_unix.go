//go:build unix

package freeport

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// lockFile is the file whose byte N a process locks to hold port N. It is
// opened once and never closed: closing any descriptor of a file drops
// every lock the process holds on it.
var lockFile = sync.OnceValue(func() *os.File {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "hookd-ports.lock"), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil // another user's file: only the in-process set applies
	}
	return f
})

// lockAcrossProcesses takes a write lock on byte port of the shared file
// without waiting, and reports false when another process holds it. With
// no lock file to use it reports true: the listen probe still applies.
func lockAcrossProcesses(port int) bool {
	f := lockFile()
	if f == nil {
		return true
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: int64(port), Len: 1}
	err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk)
	return err == nil || !(errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES))
}
