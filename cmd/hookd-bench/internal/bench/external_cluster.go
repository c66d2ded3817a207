package bench

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/store/pgtest"
	"github.com/hookd/hookd/internal/store/secretbox"
)

// cluster is one configuration of the external mode: PostgreSQL (hookd's
// endpoint store), a Temporal server process (`hookd dev
// --only-temporal`, on SQLite files or, with TemporalPostgres, in the same
// PostgreSQL), workers and one API process, the way `make test-scaleout`
// runs them, or `hookd serve` processes instead of workers and API; all
// data under one temporary directory.
type cluster struct {
	bin, dir string
	pg       *pgtest.Server
	pgPID    int
	temporal *child
	workers  []*child // or serve processes
	api      *child   // nil with serve processes
	serve    bool
	targets  []*hookdTarget
	// profiles are the children's --pprof-addr by child name (none
	// without ExternalConfig.ProfileDir).
	profiles map[string]string
}

// stopGrace is how long a child may take to exit on SIGTERM before it is
// killed; the children's shutdown timeout is half of it.
const stopGrace = 20 * time.Second

// startCluster starts PostgreSQL, Temporal, the workers and the API, and
// waits until each is ready. On error it stops what it started.
func startCluster(ctx context.Context, cfg ExternalConfig, workers int) (_ *cluster, err error) {
	dir, err := os.MkdirTemp("", "hookd-bench-external-")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	c := &cluster{bin: cfg.Hookd, dir: dir, serve: cfg.Serve, profiles: map[string]string{}}
	profiling := cfg.ProfileDir != ""
	defer func() {
		if err != nil {
			err = errors.Join(err, c.stop())
		}
	}()
	startPG := pgtest.StartServer
	if cfg.Durable {
		startPG = pgtest.StartDurableServer
	}
	if c.pg, err = startPG(); err != nil {
		return c, fmt.Errorf("start postgres: %w", err)
	}
	if c.pgPID, err = c.pg.PID(); err != nil {
		return c, err
	}

	temporalAddr, err := freeAddr()
	if err != nil {
		return c, err
	}
	args := []string{"dev", "--only-temporal",
		"--data-dir", filepath.Join(dir, "temporal"), "--temporal-addr", temporalAddr,
		"--ui-addr", "", "--retention", "168h", "--log-level", "warn"}
	if cfg.TemporalPostgres {
		u, err := temporalDatabaseURL(c.pg.URL)
		if err != nil {
			return c, err
		}
		args = append(args, "--temporal-database-url", u)
	}
	if cfg.AllVisibilityIndexes {
		args = append(args, "--temporal-all-visibility-indexes")
	}
	if cfg.StockVisibilityColumns {
		args = append(args, "--temporal-stock-visibility-columns")
	}
	if cfg.StockExecutionStore {
		args = append(args, "--temporal-stock-execution-store")
	}
	if cfg.TemporalShards > 0 {
		args = append(args, "--temporal-shards", strconv.Itoa(cfg.TemporalShards))
	}
	if profiling {
		if args, err = c.profiled("temporal", args); err != nil {
			return c, err
		}
	}
	if c.temporal, err = startChild(dir, cfg.Hookd, "temporal", nil, args...); err != nil {
		return c, err
	}
	if err := c.temporal.waitLine(ctx, "is running", 2*time.Minute); err != nil {
		return c, err
	}

	env, apiKey, err := childEnv(temporalAddr, c.pg.URL)
	if err != nil {
		return c, err
	}
	if cfg.TemporalCompression != "" {
		env = append(env, "HOOKD_TEMPORAL_COMPRESSION="+cfg.TemporalCompression)
	}
	mode, wenv := "worker", env
	if cfg.Serve {
		mode, wenv = "serve", append(env, "HOOKD_API_KEYS="+apiKey)
	}
	for i := range workers {
		w, addr, err := c.startServe(ctx, fmt.Sprintf("%s%d", mode, i+1), mode, wenv, profiling)
		if w != nil {
			c.workers = append(c.workers, w)
		}
		if err != nil {
			return c, err
		}
		if cfg.Serve {
			c.targets = append(c.targets, newExternalTarget(addr, apiKey))
		}
	}
	if cfg.Serve {
		return c, nil
	}
	api, apiAddr, err := c.startServe(ctx, "api", "api", append(env, "HOOKD_API_KEYS="+apiKey), profiling)
	c.api = api
	if err != nil {
		return c, err
	}
	c.targets = []*hookdTarget{newExternalTarget(apiAddr, apiKey)}
	return c, nil
}

// temporalDatabaseURL is serverURL (pgtest's "postgres" database) with
// the database Temporal's server persists in: "temporal", and hookd dev
// adds "temporal_visibility".
func temporalDatabaseURL(serverURL string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", fmt.Errorf("postgres url: %w", err)
	}
	u.Path = "/temporal"
	return u.String(), nil
}

// newExternalTarget is an API client for a hookd process's API at addr.
func newExternalTarget(addr, apiKey string) *hookdTarget {
	tr := &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 512, IdleConnTimeout: time.Minute}
	return &hookdTarget{
		dev: &app.Dev{APIURL: "http://" + addr, APIKey: apiKey},
		hc:  &http.Client{Transport: tr, Timeout: time.Minute},
	}
}

// startServe starts `hookd <mode>` on a free address and waits for its
// /readyz; profiled, it serves its runtime profiles too.
func (c *cluster) startServe(ctx context.Context, name, mode string, env []string, profiled bool) (*child, string, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	args := []string{mode}
	if profiled {
		if args, err = c.profiled(name, args); err != nil {
			return nil, "", err
		}
	}
	p, err := startChild(c.dir, c.bin, name, append(env, "HOOKD_HTTP_ADDR="+addr), args...)
	if err != nil {
		return nil, "", err
	}
	return p, addr, p.waitReady(ctx, "http://"+addr+"/readyz", time.Minute)
}

// profiled adds --pprof-addr on a free address to the child name's
// args and records the address.
func (c *cluster) profiled(name string, args []string) ([]string, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	c.profiles[name] = addr
	return append(args, "--pprof-addr", addr), nil
}

// childEnv is the configuration every hookd worker and API process gets,
// the same variables as the scale-out test's, and the API key.
func childEnv(temporalAddr, dbURL string) ([]string, string, error) {
	master, err := secretbox.GenerateKey()
	if err != nil {
		return nil, "", fmt.Errorf("master key: %w", err)
	}
	payload, err := secretbox.GenerateKey()
	if err != nil {
		return nil, "", fmt.Errorf("payload key: %w", err)
	}
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return nil, "", fmt.Errorf("api key: %w", err)
	}
	return []string{
		"TEMPORAL_ADDRESS=" + temporalAddr,
		"TEMPORAL_NAMESPACE=default",
		"HOOKD_DATABASE_URL=" + dbURL,
		"HOOKD_MASTER_KEY=" + secretbox.EncodeKey(master),
		"HOOKD_PAYLOAD_KEYS=" + secretbox.EncodeKey(payload),
		"HOOKD_ALLOW_CIDRS=127.0.0.1/32",
		"HOOKD_RETENTION=168h",
		"HOOKD_SHUTDOWN_TIMEOUT=10s",
		"HOOKD_LOG_FORMAT=text",
		"HOOKD_LOG_LEVEL=warn",
	}, authz.APIKeyPrefix + base64.RawURLEncoding.EncodeToString(tok), nil
}

// roots are the processes whose CPU the bench reads, by kind, in the
// report's order.
func (c *cluster) roots() []procRoot {
	var ws []int
	for _, w := range c.workers {
		ws = append(ws, w.pid())
	}
	rest := []procRoot{{kindTemporal, []int{c.temporal.pid()}}, {kindPostgres, []int{c.pgPID}}}
	if c.serve {
		return append([]procRoot{{kindServe, ws}}, rest...)
	}
	return append([]procRoot{{kindWorker, ws}, {kindAPI, []int{c.api.pid()}}}, rest...)
}

// stop stops the API, the workers, Temporal and PostgreSQL, in that
// order, and removes the temporary directory.
func (c *cluster) stop() error {
	children := append([]*child{c.api}, c.workers...)
	err := stopAll(stopGrace, append(children, c.temporal)...)
	if c.pg != nil {
		err = errors.Join(err, c.pg.Stop())
	}
	return errors.Join(err, os.RemoveAll(c.dir))
}
