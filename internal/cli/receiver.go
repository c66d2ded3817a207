package cli

import (
	"github.com/hookd/hookd/internal/embedded"

	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hookd/hookd/receiver/reference"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
func (s *stringList) Type() string       { return "strings" }

// receiverFlags defines `hookd receiver`'s flags on fs, into cfg; the
// secrets go to secrets.
func receiverFlags(fs envFlags, cfg *reference.Config, secrets *stringList) {
	fs.str(&cfg.Addr, "addr", "HOOKD_RECEIVER_ADDR", "127.0.0.1:9090", "listen address")
	fs.str(&cfg.DBPath, "db", "HOOKD_RECEIVER_DB", filepath.Join(dataDir(), "receiver.db"), "SQLite file of the inbox, under the data dir ($HOOKD_DATA_DIR) by default (empty: in memory)")
	fs.Var(secrets, "secret", "accepted whsec_ signing secret (repeat during a rotation)")
	fs.Var(&signingValue{p: &cfg.Signing}, "signing", `the endpoint's signing profile to verify: JSON as the API shows it, such as {"scheme":"hmac-sha256","header":"X-Signature"}, or standard-webhooks (the default) ($HOOKD_RECEIVER_SIGNING)`)
	fs.bind("signing", "HOOKD_RECEIVER_SIGNING")
	fs.integer(&cfg.FailFirst, "fail-first", "HOOKD_RECEIVER_FAIL_FIRST", 0, "fail the first N requests")
	fs.integer(&cfg.FailStatus, "fail-status", "HOOKD_RECEIVER_FAIL_STATUS", 503, "status of injected failures")
	fs.str(&cfg.RetryAfter, "retry-after", "HOOKD_RECEIVER_RETRY_AFTER", "", "Retry-After sent with injected failures")
	fs.duration(&cfg.Delay, "delay", "HOOKD_RECEIVER_DELAY", 0, "delay every answer")
	fs.integer(&cfg.AlwaysFail, "always-fail", "HOOKD_RECEIVER_ALWAYS_FAIL", 0, "answer every request with this status")
	fs.integer(&cfg.DropAfterCommit, "drop-after-commit", "HOOKD_RECEIVER_DROP_AFTER_COMMIT", 0, "drop the connection after committing the first N requests (-1: always)")
}

func receiverCommand(e *clientEnv) *cobra.Command {
	var (
		cfg     reference.Config
		secrets stringList
	)
	cmd := &cobra.Command{
		Use:   "receiver --secret whsec_...",
		Short: "run the reference receiver (verifies, deduplicates, injects faults)",
		Long: `Run the reference webhook receiver: it verifies each delivery's Standard
Webhooks signature, commits it once in a SQLite inbox, counts business effects
per delivery ID (GET /stats) and can inject failures to try hookd's retries.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.Secrets = secrets; len(cfg.Secrets) == 0 {
				return usagef("at least one --secret is required")
			}
			return runReceiver(cmd.Context(), cfg, e.stdout)
		},
	}
	receiverFlags(envFlags{cmd.Flags()}, &cfg, &secrets)
	return cmd
}

// runReceiver takes the receiver's port before it prints its banner, so a
// port in use is an error and not a banner followed by one.
func runReceiver(ctx context.Context, cfg reference.Config, stdout io.Writer) error {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return embedded.ListenError(cfg.Addr, err)
	}
	r, err := reference.New(cfg)
	if err != nil {
		ln.Close()
		return err
	}
	defer r.Close()
	addr := ln.Addr().String()
	fmt.Fprintf(stdout, "hookd reference receiver on http://%s (stats: http://%s/stats)\n", addr, addr)
	return r.Serve(ctx, ln)
}
