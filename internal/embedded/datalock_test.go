package embedded

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDataDirLock: one holder at a time, the refusal naming the holder's
// process ID; released, the lock can be taken again.
func TestDataDirLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	first, err := lockDataDir(dir, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockDataDir(dir, slog.Default())
	if !errors.Is(err, ErrDataDirInUse) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second lock: %v, want ErrDataDirInUse naming pid %d", err, os.Getpid())
	}
	first.Release()
	again, err := lockDataDir(dir, slog.Default())
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again.Release()
	info, err := os.Stat(filepath.Join(dir, dataLockName))
	if err != nil || info.Mode().Perm() != DataFileMode {
		t.Fatalf("lock file: %v, mode %v, want %v", err, info.Mode().Perm(), DataFileMode)
	}
}
