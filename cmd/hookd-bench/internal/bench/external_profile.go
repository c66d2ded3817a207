package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// ProfileWindow is how much of the saturation each process's CPU profile
// covers, from its start: shorter than a 3,000-delivery saturation takes,
// so the profile holds only that phase's work.
const ProfileWindow = 8 * time.Second

// profileCPU fetches a CPU profile over window (whole seconds) from
// every address in addrs (child name to --pprof-addr) at once, into dir
// as <name>-<workers>.prof; the returned wait blocks until all are
// written and reports what failed.
func profileCPU(ctx context.Context, dir string, workers int, addrs map[string]string, window time.Duration) (wait func() error) {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for name, addr := range addrs {
		path := filepath.Join(dir, name+"-"+strconv.Itoa(workers)+".prof")
		wg.Go(func() {
			if err := fetchProfile(ctx, addr, path, window); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("cpu profile of %s: %w", name, err))
				mu.Unlock()
			}
		})
	}
	return func() error {
		wg.Wait()
		return errors.Join(errs...)
	}
}

// fetchProfile writes the CPU profile that the profile server at addr
// takes over window to path.
func fetchProfile(ctx context.Context, addr, path string, window time.Duration) error {
	u := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(window/time.Second))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", addr, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
