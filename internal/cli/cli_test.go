package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookd runs the binary's entry point with args and returns the exit
// status and what it printed.
func hookd(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = newEnv(strings.NewReader(""), &out, &errOut).execute(context.Background(), args)
	return code, out.String(), errOut.String()
}

// commandPaths lists every command of hookd's tree, as arguments.
func commandPaths() [][]string {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	root := newEnv(nil, nil, nil).rootCommand()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	walk(root, nil)
	return paths
}

// Every command's help, asked with --help, -h or `hookd help`, goes to
// stdout with exit status 0.
func TestHelpExitsZero(t *testing.T) {
	paths := commandPaths()
	require.Greater(t, len(paths), 25, "the whole tree is walked")
	for _, path := range paths {
		name := strings.Join(append([]string{"hookd"}, path...), " ")
		for _, help := range []string{"--help", "-h"} {
			code, out, errOut := hookd(append(path, help)...)
			assert.Equal(t, 0, code, "%s %s: %s", name, help, errOut)
			assert.Empty(t, errOut, "%s %s", name, help)
			if path == nil || path[0] != "bench" { // bench prints its own flags
				assert.Contains(t, out, "Usage:\n  "+name, "%s %s", name, help)
			}
		}
	}
	code, out, _ := hookd("help", "dlq", "redrive")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "hookd dlq redrive DELIVERY_ID")
	code, out, _ = hookd("dev", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "$HOOKD_RETENTION", "each flag names its variable")
}

// Usage errors exit 2, failures 1, each with one line on stderr that
// names the command.
func TestErrorsAreOneLine(t *testing.T) {
	t.Setenv("HOOKD_API_KEY", "k")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"nope"}, 2, `hookd: unknown command "nope"`},
		{[]string{"dlq"}, 2, "hookd: dlq: missing subcommand: one of job, list, redrive, show, summary"},
		{[]string{"dlq", "nope"}, 2, `hookd: dlq: unknown subcommand "nope"`},
		{[]string{"dlq", "list", "--bogus"}, 2, "hookd: dlq list: unknown flag: --bogus (see `hookd dlq list --help`)"},
		{[]string{"deliveries", "get"}, 2, "hookd: deliveries get: want exactly one delivery ID, got 0 arguments"},
		{[]string{"endpoints", "delete", "a", "b"}, 2, "want exactly one endpoint ID, got 2 arguments"},
		{[]string{"dlq", "list", "--since", "yesterday"}, 2, `hookd: dlq list: --since "yesterday": want an RFC 3339 time`},
		{[]string{"receiver"}, 2, "hookd: receiver: at least one --secret is required"},
		{[]string{"dev", "--circuit-cooldown", "0s"}, 2, "--circuit-cooldown must be positive"},
		{[]string{"dlq", "summary", "--api-url", "http://127.0.0.1:1", "--api-key", "k"}, 1, "hookd: dlq summary: Get"},
	} {
		code, out, errOut := hookd(tc.args...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, errOut)
		assert.Empty(t, out, "%v", tc.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line: %q", tc.args, errOut)
		assert.True(t, strings.HasPrefix(errOut, tc.want) || strings.Contains(errOut, tc.want), "%v: %q, want %q", tc.args, errOut, tc.want)
	}
}

// A HOOKD_* variable holding a value its flag refuses stops the command
// with one line naming the variable, never echoing the value; a flag
// given on the command line wins over the variable.
func TestBadEnvironmentValues(t *testing.T) {
	t.Setenv("HOOKD_DATA_DIR", t.TempDir())
	// Each command would also fail on its own (a bad flag, a missing one),
	// with another message, so none starts if the variable were ignored.
	dev := []string{"dev", "--circuit-cooldown", "0s"}
	for env, args := range map[string][]string{
		"HOOKD_RETENTION":           dev,
		"HOOKD_WORKFLOW_CACHE":      dev,
		"HOOKD_ONLY_TEMPORAL":       dev,
		"HOOKD_LOG_LEVEL":           dev,
		"HOOKD_PAYLOAD_ENCRYPTION":  dev,
		"HOOKD_RECEIVER_FAIL_FIRST": {"receiver"},
		"HOOKD_SHUTDOWN_TIMEOUT":    {"worker"},
	} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "s3cr3t-not-a-value")
			code, _, errOut := hookd(args...)
			assert.Equal(t, 2, code, errOut)
			assert.Contains(t, errOut, "$"+env+": want a ")
			assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
			assert.NotContains(t, errOut, "s3cr3t", "the value is not repeated")
		})
	}

	// The flag wins; then the variable applies.
	t.Setenv("HOOKD_WORKFLOW_CACHE", "250")
	var f serveFlags
	fs := newServeFlagSet("worker", &f)
	require.NoError(t, fs.Parse([]string{"--workflow-cache", "300"}))
	require.NoError(t, applyEnv(fs.FlagSet))
	assert.Equal(t, 300, f.cfg.WorkflowCacheSize)
	f = serveFlags{}
	fs = newServeFlagSet("worker", &f)
	require.NoError(t, fs.Parse(nil))
	require.NoError(t, applyEnv(fs.FlagSet))
	assert.Equal(t, 250, f.cfg.WorkflowCacheSize)
}

// Every API client command takes --json and prints the API's answer as
// JSON, endpoints delete and dlq job included.
func TestJSONOnEveryClientCommand(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/endpoints", 201, endpointJSON+`,"secret":"whsec_abc"}`)
	f.on("GET /v1/endpoints", 200, `{"data":[`+endpointJSON+`}]}`)
	f.on("GET /v1/endpoints/{id}", 200, endpointJSON+`}`)
	f.on("PATCH /v1/endpoints/{id}", 200, endpointJSON+`}`)
	f.on("DELETE /v1/endpoints/{id}", 204, "")
	f.on("POST /v1/endpoints/{id}/secret/rotate", 200, `{"endpoint_id":"ep_1","secret":"whsec_new","previous_expires_at":"2026-11-30T13:00:00Z"}`)
	f.on("POST /v1/endpoints/{id}/recover", 200, `{"endpoint_id":"ep_1","woken":0,"spread":"0s"}`)
	f.on("POST /v1/events", 202, `{"event_id":"evt_1","deliveries":[],"duplicate":false}`)
	f.on("GET /v1/deliveries/{id}", 200, `{"id":"dlv_1","status":"delivered","timeline":[]}`)
	f.on("GET /v1/events", 200, `{"data":[]}`)
	f.on("GET /v1/events/{id}", 200, `{"event_id":"evt_1","type":"order.created","payload":{},"deliveries":[]}`)
	f.on("POST /v1/events/{id}/expunge", 200, `{"event_id":"evt_1","type":"order.created","deliveries":[],"expunged_at":"2026-12-01T10:00:00Z","expunged_by":"platform","expunge_reason":"erasure","temporal_copy":"unreadable"}`)
	f.on("GET /v1/dead-letters", 200, `{"data":[]}`)
	f.on("GET /v1/dead-letters/summary", 200, `{"total":0,"groups":[]}`)
	f.on("GET /v1/dead-letters/{id}", 200, `{"id":"dlv_1","timeline":[],"payload":{}}`)
	f.on("POST /v1/dead-letters/{id}/redrive", 202, `{"delivery_id":"dlv_1","status":"redrive requested"}`)
	f.on("POST /v1/dead-letters/redrive", 202, `{"job_id":"redrive_1","matched":3,"rate":10}`)
	f.on("GET /v1/dead-letters/redrive/{job}", 200, `{"job_id":"redrive_1","state":"running","total":3,"completed":1}`)
	f.on("GET /v1/deliveries", 200, `{"data":[]}`)
	f.on("PUT /v1/tenants/{id}", 201, tenantJSON)
	f.on("GET /v1/tenants", 200, `{"data":[]}`)
	f.on("GET /v1/tenants/{id}", 200, tenantJSON)
	f.on("DELETE /v1/tenants/{id}", 204, "")
	f.on("POST /v1/tenants/{id}/tokens", 201, `{"token":"htk_x","tenant_id":"acme","expires_at":"2026-12-01T10:00:00Z"}`)
	f.on("PUT /v1/event-types/{name}", 201, eventTypeJSON)
	f.on("GET /v1/event-types", 200, `{"data":[]}`)
	f.on("GET /v1/event-types/{name}", 200, eventTypeJSON)
	f.on("DELETE /v1/event-types/{name}", 204, "")
	f.on("POST /v1/tenants/{id}/portal", 201, `{"url":"https://h/portal/login?t=hpl_x","tenant_id":"acme","expires_at":"2026-12-01T10:00:00Z","session_ttl":"24h0m0s","capabilities":{}}`)
	f.on("GET /v1/portal/settings", 200, `{"product_name":"","logo":"","accent_color":"","theme":"light","support_url":""}`)
	f.on("PUT /v1/portal/settings", 200, `{"product_name":"","logo":"","accent_color":"","theme":"dark","support_url":""}`)
	f.on("GET /v1/tenants/{id}/portal-branding", 200, `{"tenant_id":"acme","product_name":"","logo":""}`)
	f.on("PUT /v1/tenants/{id}/portal-branding", 200, `{"tenant_id":"acme","product_name":"R","logo":""}`)

	runs := map[string][]string{
		"endpoints create":     {"--url", "https://example.com/h"},
		"endpoints list":       nil,
		"endpoints get":        {"ep_1"},
		"endpoints update":     {"ep_1", "--enabled=false"},
		"endpoints delete":     {"ep_1"},
		"endpoints rotate":     {"ep_1"},
		"endpoints recover":    {"ep_1"},
		"send":                 {"--type", "order.created", "--payload", "{}"},
		"deliveries get":       {"dlv_1"},
		"deliveries list":      nil,
		"tenants put":          {"acme"},
		"tenants list":         nil,
		"tenants get":          {"acme"},
		"tenants delete":       {"acme"},
		"tenants token":        {"acme"},
		"tenants portal-link":  {"acme"},
		"portal settings show": nil,
		"portal settings set":  {"--theme", "dark"},
		"portal branding show": {"acme"},
		"portal branding set":  {"acme", "--product-name", "R"},
		"event-types put":      {"invoice.paid"},
		"event-types list":     nil,
		"event-types get":      {"invoice.paid"},
		"event-types delete":   {"invoice.paid"},
		"events list":          nil,
		"events get":           {"evt_1"},
		"events expunge":       {"evt_1", "--reason", "erasure"},
		"dlq list":             nil,
		"dlq summary":          nil,
		"dlq show":             {"dlv_1"},
		"dlq redrive":          {"dlv_1"},
		"dlq redrive (bulk)":   {"--endpoint", "ep_1", "--yes"},
		"dlq job":              {"redrive_1"},
		"version":              nil,
	}
	// Every client command of the tree is in the table.
	clients := 0
	for _, path := range commandPaths() {
		name := strings.Join(path, " ")
		cmd, _, err := newEnv(nil, nil, nil).rootCommand().Find(path)
		require.NoError(t, err, name)
		// InheritedFlags merges the group's client flags into Flags.
		client := cmd.InheritedFlags().Lookup("api-url") != nil || cmd.Flags().Lookup("api-url") != nil
		if client && !cmd.HasSubCommands() {
			clients++
			_, ok := runs[name]
			assert.True(t, ok, "%s is not covered", name)
		}
	}
	assert.Greater(t, clients, 20, "the walk finds the client commands")
	for name, args := range runs {
		path := strings.Fields(strings.TrimSuffix(name, " (bulk)"))
		code, out, errOut := hookd(append(append(path, args...), "--json")...)
		require.Equal(t, 0, code, "%s: %s", name, errOut)
		assert.True(t, json.Valid([]byte(out)), "%s --json printed %q", name, out)
	}
	_, out, _ := hookd("endpoints", "delete", "ep_1", "--json")
	assert.JSONEq(t, `{"id":"ep_1","deleted":true}`, out)
	_, out, _ = hookd("tenants", "delete", "acme", "--json")
	assert.JSONEq(t, `{"id":"acme","deleted":true}`, out)
	_, out, _ = hookd("dlq", "job", "redrive_1", "--json")
	assert.JSONEq(t, `{"job_id":"redrive_1","state":"running","total":3,"completed":1}`, out, "the job's progress now")
}

func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		code, out, errOut := hookd("completion", shell)
		assert.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "hookd", shell)
		assert.Greater(t, len(out), 1000, shell)
	}
}

// The reference receiver keeps its inbox under the data dir, not in the
// working directory.
func TestReceiverInboxUnderTheDataDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOOKD_DATA_DIR", dir)
	var cmd *cobra.Command
	root := newEnv(nil, nil, nil).rootCommand()
	cmd, _, err := root.Find([]string{"receiver"})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "receiver.db"), cmd.Flags().Lookup("db").DefValue)
}

func TestReceiverRefusesAPortInUseBeforeItsBanner(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var out, errOut bytes.Buffer
	code := newEnv(strings.NewReader(""), &out, &errOut).execute(context.Background(),
		[]string{"receiver", "--secret", "whsec_" + strings.Repeat("A", 32), "--db", "", "--addr", ln.Addr().String()})
	assert.Equal(t, 1, code)
	assert.Empty(t, out.String(), "no banner for a receiver that is not listening")
	assert.Equal(t, "hookd: receiver: listen on "+ln.Addr().String()+": address already in use\n", errOut.String())
}
