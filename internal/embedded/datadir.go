package embedded

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// Modes of the data dir and what it holds: the SQLite databases, the
// master key, the payload keys and the API key are readable by their
// owner only.
const (
	DataDirMode  fs.FileMode = 0o700
	DataFileMode fs.FileMode = 0o600
)

// SecureDataDir creates dir with DataDirMode if it is missing and makes
// an existing one private: the dir and every directory in it become
// DataDirMode, every file DataFileMode (a dir made by an older hookd, or
// by hand, kept its mode). Symbolic links are left alone. A mode it
// cannot change (a dir owned by someone else) stops the start with an
// error saying what to do. Each change is logged, by file name.
func SecureDataDir(dir string, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	if err := os.MkdirAll(dir, DataDirMode); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("data dir %s: %w", dir, err)
		}
		want := DataFileMode
		switch {
		case d.IsDir():
			want = DataDirMode
		case !d.Type().IsRegular():
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // a SQLite journal that came and went
		}
		if err != nil {
			return fmt.Errorf("data dir %s: %w", dir, err)
		}
		if info.Mode().Perm() == want {
			return nil
		}
		if err := os.Chmod(path, want); err != nil {
			return fmt.Errorf("data dir %s: %s has mode %04o and cannot be made %04o (chmod it, or use a data dir of your own): %w",
				dir, rel(dir, path), info.Mode().Perm(), want, err)
		}
		log.Warn("data dir: made private", "path", rel(dir, path), "was", fmt.Sprintf("%04o", info.Mode().Perm()), "now", fmt.Sprintf("%04o", want))
		return nil
	})
}

// rel names path inside dir for messages.
func rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil {
		return r
	}
	return filepath.Base(path)
}
