package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestServeProfiles(t *testing.T) {
	if u, err := ServeProfiles(t.Context(), "", slog.Default()); u != "" || err != nil {
		t.Fatalf("empty addr: %q, %v; want nothing served", u, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	u, err := ServeProfiles(ctx, "127.0.0.1:0", slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(u + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("index: %d %.80q", code, body)
	}
	if code, body := get("/debug/pprof/heap"); code != http.StatusOK || len(body) == 0 {
		t.Errorf("heap: %d, %d bytes", code, len(body))
	}
	if code, body := get("/debug/pprof/profile?seconds=1"); code != http.StatusOK || len(body) == 0 {
		t.Errorf("CPU profile: %d, %d bytes", code, len(body))
	}
	// The command line can carry secrets given as flags.
	if code, _ := get("/debug/pprof/cmdline"); code != http.StatusNotFound {
		t.Errorf("cmdline: %d, want 404", code)
	}
	if code, _ := get("/metrics"); code != http.StatusNotFound {
		t.Errorf("/metrics: %d, want 404 (profiles only)", code)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get(u + "/debug/pprof/")
		if err != nil {
			break
		}
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatal("still serving after its context ended")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServeProfilesPortTaken(t *testing.T) {
	u, err := ServeProfiles(t.Context(), "127.0.0.1:0", slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ServeProfiles(t.Context(), strings.TrimPrefix(u, "http://"), slog.Default()); err == nil {
		t.Fatal("a second server on the same port started")
	}
}
