package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// clientEnv is what hookd's commands take from their surroundings: the
// standard streams, whether they are terminals, the clock, and the
// options the API client commands share. Tests replace the clock, the
// poll interval and the terminal checks.
type clientEnv struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	interactive    bool // stdin is a terminal: a confirmation may be asked
	tty            bool // stdout is a terminal: progress redraws one line
	now            func() time.Time
	version        string        // hookd's version, set at build time
	poll           time.Duration // how often a redrive job is polled

	// Set by the client commands' flags.
	apiURL, apiKey string
	json           bool
}

// Main runs hookd with args (without the program name) and returns its
// exit status: 0, 1 when the command failed, 2 when it was called wrongly.
func Main(ctx context.Context, version string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := newEnv(stdin, stdout, stderr)
	e.version = version
	return e.execute(ctx, args)
}

// newEnv is the environment of the running process.
func newEnv(stdin io.Reader, stdout, stderr io.Writer) *clientEnv {
	return &clientEnv{
		stdout: stdout, stderr: stderr, stdin: stdin,
		interactive: isTerminal(stdin), tty: isTerminal(stdout),
		now: time.Now, poll: 500 * time.Millisecond, version: "dev",
	}
}

// isTerminal reports whether v is a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// execute runs hookd with args and returns its exit status: 0, 1 when the
// command failed, 2 when it was called wrongly. A failure is one line on
// stderr.
func (e *clientEnv) execute(ctx context.Context, args []string) int {
	err := e.runArgs(ctx, args)
	if err == nil {
		return 0
	}
	fmt.Fprintln(e.stderr, "hookd: "+strings.Join(strings.Fields(err.Error()), " "))
	if isUsage(err) {
		return 2
	}
	return 1
}

// runArgs runs hookd with args and returns the failure, prefixed with the
// command that failed ("dlq list: ...").
func (e *clientEnv) runArgs(ctx context.Context, args []string) error {
	root := e.rootCommand()
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return nil
	}
	path := strings.TrimPrefix(cmd.CommandPath(), root.Name())
	if path = strings.TrimSpace(path); path != "" {
		err = prefixed{path, err}
	}
	if isUsage(err) {
		err = usageError{fmt.Errorf("%w (see `%s --help`)", err, cmd.CommandPath())}
	}
	return err
}

// run runs the command cmd with args: `hookd cmd args...`.
func (e *clientEnv) run(ctx context.Context, cmd string, args []string) error {
	return e.runArgs(ctx, append([]string{cmd}, args...))
}

// prefixed is an error of the command at path.
type prefixed struct {
	path string
	err  error
}

func (p prefixed) Error() string { return p.path + ": " + p.err.Error() }
func (p prefixed) Unwrap() error { return p.err }

const rootLong = `hookd delivers webhooks: it signs each event with Standard Webhooks
HMAC and POSTs the same bytes to every subscribed endpoint until one
attempt succeeds, retries on a schedule, parks what fails in a dead-letter
queue and lets an operator redrive it. Each delivery is a Temporal
workflow; ` + "`hookd dev`" + ` embeds Temporal and its Web UI.

Every flag of the long-running commands also reads an environment
variable, named in its help; the client commands read $HOOKD_API_URL and
$HOOKD_API_KEY (else the key ` + "`hookd dev`" + ` keeps in its data dir).`

// rootCommand is hookd's command tree.
func (e *clientEnv) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "hookd",
		Short:         "webhook delivery you can trust in production",
		Long:          rootLong,
		Version:       e.version,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		// Every command applies its flags' environment variables first.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error { return applyEnv(cmd.Flags()) },
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddGroup(&cobra.Group{ID: "run", Title: "Run hookd:"}, &cobra.Group{ID: "client", Title: "Talk to the API:"})
	for _, c := range []*cobra.Command{devCommand(e), serveCommand(e, "worker"), serveCommand(e, "api"), serveCommand(e, "serve"), receiverCommand(e)} {
		c.GroupID = "run"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{tenantsCommand(e), eventTypesCommand(e), endpointsCommand(e), sendCommand(e), eventsCommand(e), deliveriesCommand(e), dlqCommand(e), portalCommand(e)} {
		c.GroupID = "client"
		root.AddCommand(c)
	}
	root.AddCommand(versionCommand(e))
	return root
}

func versionCommand(e *clientEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "print hookd's version",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			if e.json {
				return printJSON(e.stdout, fmt.Appendf(nil, `{"version":%q}`, e.version))
			}
			_, err := fmt.Fprintln(e.stdout, "hookd", e.version)
			return err
		},
	}
	cmd.Flags().BoolVar(&e.json, "json", false, "print the version as JSON")
	return cmd
}

// group is a command that only holds subcommands: called alone or with an
// unknown subcommand it is a usage error.
func group(use, short string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		RunE: func(cmd *cobra.Command, args []string) error {
			names := []string{}
			for _, c := range cmd.Commands() {
				if c.IsAvailableCommand() {
					names = append(names, c.Name())
				}
			}
			slices.Sort(names)
			if len(args) == 0 {
				return usagef("missing subcommand: one of %s", strings.Join(names, ", "))
			}
			return usagef("unknown subcommand %q: want one of %s", args[0], strings.Join(names, ", "))
		},
	}
	// Its usage shows only "hookd <group> [command]": alone it does
	// nothing. Its subcommands keep the usual usage (they would inherit
	// the group's).
	usual := cmd.UsageTemplate()
	for _, sub := range subs {
		sub.SetUsageTemplate(usual)
	}
	cmd.SetUsageTemplate(strings.Replace(usual, "{{if .Runnable}}\n  {{.UseLine}}{{end}}", "", 1))
	cmd.AddCommand(subs...)
	return cmd
}

// noArgs refuses positional arguments as a usage error.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected arguments: %s", strings.Join(args, " "))
	}
	return nil
}

// oneArg wants exactly one positional argument, what it is named in the
// error.
func oneArg(what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 || args[0] == "" {
			return usagef("want exactly one %s, got %d arguments", what, len(args))
		}
		return nil
	}
}

// newLogger is the text logger the long-running commands write to w.
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
