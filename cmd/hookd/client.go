package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hookd/hookd/apiclient"
)

// clientEnv is what the client subcommands take from their surroundings.
// Tests replace the clock, the poll interval and the terminal checks.
type clientEnv struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	interactive    bool // stdin is a terminal: a confirmation may be asked
	tty            bool // stdout is a terminal: progress redraws one line
	now            func() time.Time
	poll           time.Duration // how often a redrive job is polled
}

// clientCommand runs one client subcommand; name is its full name, such as
// "endpoints create", for flag usage.
type clientCommand func(ctx context.Context, e *clientEnv, name string, args []string) error

// clientGroups maps each client command to its subcommands, and "send",
// which has none, to itself under the empty name.
var clientGroups = map[string]map[string]clientCommand{
	"endpoints": {
		"create": endpointsCreate, "list": endpointsList, "get": endpointsGet,
		"update": endpointsUpdate, "delete": endpointsDelete, "rotate": endpointsRotate,
		"recover": endpointsRecover,
	},
	"send":       {"": sendEvent},
	"deliveries": {"get": deliveriesGet, "show": deliveriesGet},
	"events":     {"list": eventsList, "get": eventsGet, "show": eventsGet},
	"dlq": {
		"list": dlqList, "show": dlqShow, "summary": dlqSummary,
		"redrive": dlqRedrive, "job": dlqJob,
	},
}

// runClient runs the API client subcommands.
func runClient(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) error {
	e := &clientEnv{
		stdout: stdout, stderr: stderr, stdin: os.Stdin,
		interactive: isTerminal(os.Stdin), tty: isTerminal(stdout),
		now: time.Now, poll: 500 * time.Millisecond,
	}
	return e.run(ctx, cmd, args)
}

// isTerminal reports whether v is a terminal, close enough for deciding
// to draw a progress bar or ask a question.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull) // a character device, but no terminal
	return err != nil || !os.SameFile(st, null)
}

func (e *clientEnv) run(ctx context.Context, cmd string, args []string) error {
	subs, ok := clientGroups[cmd]
	if !ok {
		return fmt.Errorf("unknown command %q", cmd)
	}
	name, sub := cmd, ""
	if _, single := subs[""]; !single {
		if len(args) == 0 || strings.HasPrefix(args[0], "-") || args[0] == "help" {
			fmt.Fprint(e.stderr, groupUsage(cmd, subs))
			if len(args) > 0 {
				return flag.ErrHelp
			}
			return fmt.Errorf("%s: missing subcommand", cmd)
		}
		sub, args = args[0], args[1:]
		name = cmd + " " + sub
	}
	run, ok := subs[sub]
	if !ok {
		fmt.Fprint(e.stderr, groupUsage(cmd, subs))
		return fmt.Errorf("%s: unknown subcommand %q", cmd, sub)
	}
	if err := run(ctx, e, name, args); err != nil {
		var netErr *url.Error
		var apiErr *apiclient.Error
		if errors.As(err, &netErr) && !errors.As(err, &apiErr) && ctx.Err() == nil {
			return fmt.Errorf("%s: %w (is the API running? see --api-url or $HOOKD_API_URL)", name, err)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func groupUsage(cmd string, subs map[string]clientCommand) string {
	names := make([]string, 0, len(subs))
	for n := range subs {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Sprintf("Usage: hookd %s <%s> [flags]\nRun \"hookd %s <subcommand> -h\" for its flags.\n",
		cmd, strings.Join(names, "|"), cmd)
}

// clientFlags are the flags every client subcommand shares: where the API
// is, the key to call it with and, on commands that print an answer, --json.
type clientFlags struct {
	flagSet
	apiURL, apiKey string
	json           bool
}

// newClientFlags returns the flag set of the subcommand name; synopsis
// shows its positional arguments.
func (e *clientEnv) newClientFlags(name, synopsis string) *clientFlags {
	cf := &clientFlags{flagSet: newFlagSet("hookd "+name, e.stderr)}
	cf.str(&cf.apiURL, "api-url", "HOOKD_API_URL", "http://127.0.0.1:8080", "hookd API base URL")
	cf.str(&cf.apiKey, "api-key", "HOOKD_API_KEY", "", "API key (default: the api-key file in $HOOKD_DATA_DIR, else ./.hookd)")
	cf.Usage = func() {
		fmt.Fprintf(cf.Output(), "Usage: hookd %s %s\n", name, synopsis)
		cf.PrintDefaults()
	}
	return cf
}

// withJSON adds --json, which prints the API's answer as is.
func (cf *clientFlags) withJSON() *clientFlags {
	cf.BoolVar(&cf.json, "json", false, "print the API's JSON answer")
	return cf
}

// positional parses args, taking flags before and after the positional
// arguments, and returns the positional ones (flagSet.parse refuses them).
func (cf *clientFlags) positional(args []string) ([]string, error) {
	var pos []string
	for {
		if err := cf.Parse(args); err != nil {
			return nil, err
		}
		if cf.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, cf.Arg(0))
		args = cf.Args()[1:]
	}
}

// id parses args that must name exactly one ID, the thing described by what.
func (cf *clientFlags) id(args []string, what string) (string, error) {
	pos, err := cf.positional(args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 || pos[0] == "" {
		cf.Usage()
		return "", fmt.Errorf("want exactly one %s, got %d arguments", what, len(pos))
	}
	return pos[0], nil
}

// isSet reports whether the flag name was given on the command line.
func (cf *clientFlags) isSet(name string) bool {
	set := false
	cf.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parseClient parses args, which take no positional arguments, and
// returns the API client the flags describe.
func (cf *clientFlags) parseClient(args []string) (*apiclient.Client, error) {
	if err := cf.parse(args); err != nil {
		return nil, err
	}
	return cf.client()
}

// idClient parses args naming exactly one ID (what it is names it in
// errors) and returns the ID and the API client.
func (cf *clientFlags) idClient(args []string, what string) (string, *apiclient.Client, error) {
	id, err := cf.id(args, what)
	if err != nil {
		return "", nil, err
	}
	c, err := cf.client()
	return id, c, err
}

// client returns the API client the flags describe.
func (cf *clientFlags) client() (*apiclient.Client, error) {
	key := cf.apiKey
	if key == "" {
		var err error
		if key, err = devAPIKey(); err != nil {
			return nil, err
		}
	}
	return apiclient.New(cf.apiURL, key, apiclient.WithUserAgent("hookd-cli/"+version))
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
