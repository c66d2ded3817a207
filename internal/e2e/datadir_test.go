package e2e

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/testkit"
)

// TestDataDirPrivateAndGuarded runs a hookd of its own on a data dir made
// with everyone's read access: it starts with the dir 0700 and every file
// in it 0600. Deleting the data dir under it then fails /readyz and
// ingest (503, saying why) within seconds, where it used to go unnoticed
// and accept events it would lose.
func TestDataDirPrivateAndGuarded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "api-key"), []byte("hk_e2e_datadir_key\n"), 0o644))
	require.NoError(t, os.Chmod(filepath.Join(dir, "api-key"), 0o644))
	dev, err := startDev(dir, testkit.FreeAddr(t))
	require.NoError(t, err)
	t.Cleanup(func() { dev.Stop(context.Background()) })

	info, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o700), info.Mode().Perm(), "data dir")
	files := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.Type().IsRegular() {
			info, err := d.Info()
			require.NoError(t, err)
			require.Equal(t, fs.FileMode(0o600), info.Mode().Perm(), path)
			files++
		}
		return nil
	}))
	require.GreaterOrEqual(t, files, 5, "databases and keys")

	get := func(path string) (int, string) {
		resp, err := http.Get(dev.APIURL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	ingest := func() (int, apiError) {
		req, err := http.NewRequest("POST", dev.APIURL+"/v1/events", strings.NewReader(`{"type":"datadir.test","payload":{}}`))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+dev.APIKey)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var e apiError
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e
	}
	code, _ := get("/readyz")
	require.Equal(t, http.StatusOK, code)
	code, _ = ingest()
	require.Equal(t, http.StatusAccepted, code)

	require.NoError(t, os.RemoveAll(dir))
	var body string
	require.Eventually(t, func() bool {
		code, body = get("/readyz")
		return code == http.StatusServiceUnavailable
	}, 10*time.Second, 100*time.Millisecond, "readiness fails")
	require.Contains(t, body, `"data_dir"`)
	require.Contains(t, body, "missing")
	code, e := ingest()
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.EqualValues(t, "unavailable", e.Error.Code)
	require.Contains(t, e.Error.Message, "data dir deleted or replaced")
}
