package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hookd/hookd/apiclient"
)

// clientFlags adds the flags every API client command shares: where the
// API is, the key to call it with, and --json.
func (e *clientEnv) clientFlags(fs *pflag.FlagSet) {
	ef := envFlags{fs}
	ef.str(&e.apiURL, "api-url", "HOOKD_API_URL", "http://127.0.0.1:8080", "hookd API base URL")
	ef.secret(&e.apiKey, "api-key", "HOOKD_API_KEY", "API key (default: the api-key file in $HOOKD_DATA_DIR, else ./.hookd)")
	fs.BoolVar(&e.json, "json", false, "print the API's JSON answer instead of text")
}

// clientGroup is a group of API client commands, which share the client
// flags.
func (e *clientEnv) clientGroup(use, short string, subs ...*cobra.Command) *cobra.Command {
	cmd := group(use, short, subs...)
	e.clientFlags(cmd.PersistentFlags())
	return cmd
}

// clientRun is what an API client command does with the client its flags
// describe.
type clientRun func(ctx context.Context, c *apiclient.Client, cmd *cobra.Command, args []string) error

// call makes run a command's RunE: it builds the API client, runs, and
// hints at the API's address when it cannot be reached.
func (e *clientEnv) call(run clientRun) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		c, err := e.client()
		if err != nil {
			return err
		}
		err = run(cmd.Context(), c, cmd, args)
		var netErr *url.Error
		var apiErr *apiclient.Error
		if errors.As(err, &netErr) && !errors.As(err, &apiErr) && cmd.Context().Err() == nil {
			return fmt.Errorf("%w (is the API running? see --api-url or $HOOKD_API_URL)", err)
		}
		return err
	}
}

// client returns the API client the flags describe.
func (e *clientEnv) client() (*apiclient.Client, error) {
	key := e.apiKey
	if key == "" {
		var err error
		if key, err = devAPIKey(); err != nil {
			return nil, err
		}
	}
	c, err := apiclient.New(e.apiURL, key, apiclient.WithUserAgent("hookd-cli/"+e.version))
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

// dataDir is where `hookd dev` keeps its state and the reference
// receiver its inbox: $HOOKD_DATA_DIR, else .hookd.
func dataDir() string {
	if dir := os.Getenv("HOOKD_DATA_DIR"); dir != "" {
		return dir
	}
	return ".hookd"
}

// devAPIKey reads the key `hookd dev` keeps in its data dir.
func devAPIKey() (string, error) {
	path := filepath.Join(dataDir(), "api-key")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("no API key: pass --api-key, set $HOOKD_API_KEY, or run where `hookd dev` keeps %s", path)
	}
	if err != nil {
		return "", fmt.Errorf("read API key: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
