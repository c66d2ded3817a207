package secretbox

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// GenerateKey returns a new random master key.
func GenerateKey() ([]byte, error) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	return key, nil
}

// EncodeKey returns the standard base64 form of key that ParseKey reads.
func EncodeKey(key []byte) string {
	return base64.StdEncoding.EncodeToString(key)
}

// ParseKey decodes a master key given in configuration as base64 (standard
// or URL alphabet, padded or not). Surrounding white space is ignored. The
// error never contains the input.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		key, err := enc.DecodeString(s)
		if err != nil {
			continue
		}
		if len(key) != KeySize {
			return nil, fmt.Errorf("parse key: decodes to %d bytes, want %d", len(key), KeySize)
		}
		return key, nil
	}
	return nil, errors.New("parse key: not base64")
}

// LoadOrCreateKeyFile reads the base64 master key in path, or, when path does
// not exist, creates it (mode 0600) with a new random key. It refuses a key
// file that group or others may read. Two processes racing to create the
// file end up with the same key.
func LoadOrCreateKeyFile(path string) ([]byte, error) {
	key, err := readKeyFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	key, err = GenerateKey()
	if err != nil {
		return nil, err
	}
	if err := createKeyFile(path, key); errors.Is(err, fs.ErrExist) {
		return readKeyFile(path)
	} else if err != nil {
		return nil, err
	}
	return key, nil
}

// LoadOrCreateKeysFile reads a file of base64 keys, one a line, oldest
// first (blank lines and lines starting with # are skipped), or, when path
// does not exist, creates it (mode 0600) with one new random key. Like
// LoadOrCreateKeyFile it refuses a file that group or others may read.
// Appending a line adds a key (a rotation).
func LoadOrCreateKeysFile(path string) ([][]byte, error) {
	keys, err := ReadKeysFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return keys, err
	}
	key, err := GenerateKey()
	if err != nil {
		return nil, err
	}
	if err := createKeyFile(path, key); errors.Is(err, fs.ErrExist) {
		return ReadKeysFile(path)
	} else if err != nil {
		return nil, err
	}
	return [][]byte{key}, nil
}

// ReadKeysFile reads the keys file of LoadOrCreateKeysFile without creating
// it; a missing file is an error wrapping fs.ErrNotExist.
func ReadKeysFile(path string) ([][]byte, error) {
	data, err := readPrivate(path)
	if err != nil {
		return nil, err
	}
	var keys [][]byte
	for i, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, err := ParseKey(line)
		if err != nil {
			return nil, fmt.Errorf("key file %s line %d: %w", path, i+1, err)
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("key file %s: no keys", path)
	}
	return keys, nil
}

func readKeyFile(path string) ([]byte, error) {
	data, err := readPrivate(path)
	if err != nil {
		return nil, err
	}
	key, err := ParseKey(string(data))
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return key, nil
}

// readPrivate reads path, refusing a file that group or others may read.
func readPrivate(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read key file: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("read key file %s: mode %v lets others read it; chmod 600 it", path, fi.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read key file: %w", err)
	}
	return data, nil
}

// createKeyFile writes key to a temporary file and links it into place, so
// no reader ever sees a partly written key file.
func createKeyFile(path string, key []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hookd-key-*")
	if err != nil {
		return fmt.Errorf("create key file: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(EncodeKey(key) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("create key file: %w", err)
	}
	return nil
}
