package secretbox

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseKey(t *testing.T) {
	key := mustKey(t)
	for _, s := range []string{
		base64.StdEncoding.EncodeToString(key),
		base64.RawStdEncoding.EncodeToString(key),
		base64.URLEncoding.EncodeToString(key),
		base64.RawURLEncoding.EncodeToString(key),
		"  " + EncodeKey(key) + "\n",
	} {
		got, err := ParseKey(s)
		require.NoError(t, err, s)
		require.Equal(t, key, got)
	}

	short := base64.StdEncoding.EncodeToString([]byte("sixteen byte key"))
	_, err := ParseKey(short)
	require.ErrorContains(t, err, "16 bytes")

	secretish := "not*base64*my-password"
	_, err = ParseKey(secretish)
	require.Error(t, err)
	require.NotContains(t, err.Error(), secretish, "the error must not echo the key material")
}

func TestLoadOrCreateKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "master.key")
	key, err := LoadOrCreateKeyFile(path)
	require.NoError(t, err)
	require.Len(t, key, KeySize)

	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	again, err := LoadOrCreateKeyFile(path)
	require.NoError(t, err)
	require.Equal(t, key, again, "the second call loads the same key")

	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary files are left behind")
}

func TestLoadOrCreateKeyFileConcurrentCreatorsAgree(t *testing.T) {
	path := filepath.Join(t.TempDir(), "master.key")
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := LoadOrCreateKeyFile(path)
			require.NoError(t, err)
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys[1:] {
		require.Equal(t, keys[0], k)
	}
}

func TestLoadOrCreateKeyFileRefusesLooseModeAndBadContent(t *testing.T) {
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose.key")
	require.NoError(t, os.WriteFile(loose, []byte(EncodeKey(mustKey(t))), 0o644))
	_, err := LoadOrCreateKeyFile(loose)
	require.ErrorContains(t, err, "chmod 600")

	bad := filepath.Join(dir, "bad.key")
	require.NoError(t, os.WriteFile(bad, []byte("hunter2"), 0o600))
	_, err = LoadOrCreateKeyFile(bad)
	require.Error(t, err)
	require.False(t, strings.Contains(err.Error(), "hunter2"))
}

func TestKeysFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "payload-keys")
	_, err := ReadKeysFile(path)
	require.ErrorIs(t, err, os.ErrNotExist, "reading never creates")

	created, err := LoadOrCreateKeysFile(path)
	require.NoError(t, err)
	require.Len(t, created, 1)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// A rotation appends a key; comments and blank lines are skipped.
	second := mustKey(t)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n# added in the rotation\n" + EncodeKey(second) + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	keys, err := LoadOrCreateKeysFile(path)
	require.NoError(t, err)
	require.Equal(t, [][]byte{created[0], second}, keys, "oldest first")

	require.NoError(t, os.WriteFile(path, []byte(EncodeKey(second)+"\nhunter2\n"), 0o600))
	_, err = ReadKeysFile(path)
	require.ErrorContains(t, err, "line 2")
	require.NotContains(t, err.Error(), "hunter2")

	require.NoError(t, os.WriteFile(path, []byte("# nothing\n"), 0o600))
	_, err = ReadKeysFile(path)
	require.ErrorContains(t, err, "no keys")

	require.NoError(t, os.Chmod(path, 0o644))
	_, err = ReadKeysFile(path)
	require.ErrorContains(t, err, "chmod 600")
}
