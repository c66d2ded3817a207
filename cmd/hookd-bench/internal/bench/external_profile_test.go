package bench

import (
	"compress/gzip"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookd/hookd/internal/app"
)

func TestProfileCPU(t *testing.T) {
	u, err := app.ServeProfiles(t.Context(), "127.0.0.1:0", slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	addrs := map[string]string{"serve1": strings.TrimPrefix(u, "http://"), "gone": "127.0.0.1:1"}
	err = profileCPU(t.Context(), dir, 1, addrs, time.Second)()
	if err == nil || !strings.Contains(err.Error(), "cpu profile of gone") {
		t.Errorf("unreachable process: %v, want its failure named", err)
	}
	f, err := os.Open(filepath.Join(dir, "serve1-1.prof"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A CPU profile is a gzipped protocol buffer.
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("not a profile: %v", err)
	}
	if n, err := io.Copy(io.Discard, zr); err != nil || n == 0 {
		t.Fatalf("profile: %d bytes, %v", n, err)
	}
}
