package embedded

import (
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	info, err := os.Lstat(path)
	require.NoError(t, err)
	return info.Mode().Perm()
}

// An existing data dir made with the umask's modes (0755 dir, 0644 files)
// is made private: 0700 dirs, 0600 files; a missing one is created 0700.
func TestSecureDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	for _, f := range []string{"temporal.db", "temporal.db-wal", "hookd.db", "master.key", "api-key"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644))
		require.NoError(t, os.Chmod(filepath.Join(dir, f), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "x"), nil, 0o666))
	outside := filepath.Join(t.TempDir(), "outside")
	require.NoError(t, os.WriteFile(outside, nil, 0o644))
	require.NoError(t, os.Chmod(outside, 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link")))

	require.NoError(t, SecureDataDir(dir, slog.New(slog.DiscardHandler)))
	require.Equal(t, DataDirMode, mode(t, dir))
	require.Equal(t, DataDirMode, mode(t, filepath.Join(dir, "sub")))
	for _, f := range []string{"temporal.db", "temporal.db-wal", "hookd.db", "master.key", "api-key", "sub/x"} {
		require.Equal(t, DataFileMode, mode(t, filepath.Join(dir, f)), f)
	}
	require.Equal(t, fs.FileMode(0o644), mode(t, outside), "a link's target is not the data dir's")

	fresh := filepath.Join(t.TempDir(), "new", "data")
	require.NoError(t, SecureDataDir(fresh, nil))
	require.Equal(t, DataDirMode, mode(t, fresh))
}

// The guard fails, and stays failed, once the data dir or a guarded file
// is deleted or replaced by another inode; files missing at its start
// are not guarded.
func TestDataDirGuard(t *testing.T) {
	for name, change := range map[string]func(dir string) error{
		"dir deleted":      os.RemoveAll,
		"database deleted": func(dir string) error { return os.Remove(filepath.Join(dir, "hookd.db")) },
		"database replaced": func(dir string) error {
			return os.Rename(filepath.Join(dir, "other"), filepath.Join(dir, "temporal.db"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"temporal.db", "hookd.db", "other"} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(f), 0o600))
			}
			g, err := guardDataDir(dir, []string{"temporal.db", "hookd.db", "never-made.db"}, 10*time.Millisecond, slog.New(slog.DiscardHandler))
			require.NoError(t, err)
			defer g.Close()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "hookd.db"), []byte("written in place"), 0o600))
			time.Sleep(50 * time.Millisecond)
			require.NoError(t, g.Err(), "writes in place are the same file")

			require.NoError(t, change(dir))
			require.Eventually(t, func() bool { return g.Err() != nil }, 2*time.Second, 10*time.Millisecond)
			require.ErrorIs(t, g.Err(), ErrDataDirGone)
			if name != "dir deleted" {
				return
			}
			require.NoError(t, os.MkdirAll(dir, 0o700))
			for _, f := range []string{"temporal.db", "hookd.db"} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o600))
			}
			time.Sleep(50 * time.Millisecond)
			require.ErrorIs(t, g.Err(), ErrDataDirGone, "a dir put back is not the one the process writes")
		})
	}
	var none *DataDirGuard
	require.NoError(t, none.Err())
	none.Close()
}
