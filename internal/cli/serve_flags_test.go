package cli

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/worker"
	"github.com/hookd/hookd/signing"
)

func TestParseServeFlags(t *testing.T) {
	const key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" // 32 bytes
	t.Setenv("TEMPORAL_ADDRESS", "temporal.example:7233")
	t.Setenv("TEMPORAL_NAMESPACE", "hookd")
	t.Setenv("TEMPORAL_TLS_SERVER_NAME", "temporal.internal")
	t.Setenv("HOOKD_DATABASE_URL", "postgres://hookd:pw@db/hookd")
	t.Setenv("HOOKD_MASTER_KEY", key)
	t.Setenv("HOOKD_API_KEYS", " k1, k2 ,")
	t.Setenv("HOOKD_ALLOW_CIDRS", "10.0.0.0/8, 192.168.1.7")
	t.Setenv("HOOKD_PAYLOAD_KEYS", key+",AQECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
	t.Setenv("HOOKD_CODEC_CORS_ORIGINS", "https://temporal-ui.example")

	cfg, _, format, err := parseServeFlags("serve", []string{"--http-addr", "127.0.0.1:9999"})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case !cfg.API || !cfg.Worker:
		t.Errorf("serve runs API %v worker %v", cfg.API, cfg.Worker)
	case cfg.Temporal.Address != "temporal.example:7233" || cfg.Temporal.Namespace != "hookd" || cfg.Temporal.TLSServerName != "temporal.internal":
		t.Errorf("temporal config from env: %+v", cfg.Temporal)
	case !slices.Equal(cfg.APIKeys, []string{"k1", "k2"}):
		t.Errorf("API keys %q", cfg.APIKeys)
	case len(cfg.MasterKey) != 32 || cfg.HTTPAddr != "127.0.0.1:9999" || format != "json":
		t.Errorf("master key %d bytes, http %q, format %q", len(cfg.MasterKey), cfg.HTTPAddr, format)
	case !slices.Equal(cfg.AllowCIDRs, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.7/32")}):
		t.Errorf("allow CIDRs %v", cfg.AllowCIDRs)
	case cfg.Payload.Off || len(cfg.Payload.Keys) != 2 || cfg.Payload.Keys[1][0] != 1:
		t.Errorf("payload: off %v, %d keys", cfg.Payload.Off, len(cfg.Payload.Keys))
	case !slices.Equal(cfg.Payload.CORSOrigins, []string{"https://temporal-ui.example"}):
		t.Errorf("codec CORS origins %q", cfg.Payload.CORSOrigins)
	}
	if off, _, _, err := parseServeFlags("serve", []string{"--payload-encryption=off"}); err != nil || !off.Payload.Off {
		t.Errorf("--payload-encryption=off: off %v, err %v", off.Payload.Off, err)
	}

	w, _, _, err := parseServeFlags("worker", nil)
	if err != nil || w.API || !w.Worker {
		t.Errorf("worker: API %v worker %v err %v", w.API, w.Worker, err)
	}
	if w.WorkflowCacheSize != worker.DefaultWorkflowCacheSize {
		t.Errorf("workflow cache %d, want the default %d", w.WorkflowCacheSize, worker.DefaultWorkflowCacheSize)
	}
	t.Setenv("HOOKD_WORKFLOW_CACHE", "250")
	if w, _, _, err = parseServeFlags("worker", nil); err != nil || w.WorkflowCacheSize != 250 {
		t.Errorf("HOOKD_WORKFLOW_CACHE=250: cache %d, err %v", w.WorkflowCacheSize, err)
	}
	if _, _, _, err := parseServeFlags("worker", []string{"--api-keys", "x"}); err == nil {
		t.Error("worker accepted --api-keys")
	}
}

func TestParseServeFlagsRefuses(t *testing.T) {
	const key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	db, mk, ak, pk := []string{"--database-url", "postgres://db/hookd"}, []string{"--master-key", key}, []string{"--api-keys", "k"}, []string{"--payload-keys", key}
	base := slices.Concat(db, mk, ak, pk)
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no API key":        {slices.Concat(db, mk, pk), "missing API key"},
		"no master key":     {slices.Concat(db, ak, pk), "missing master key"},
		"short master key":  {append(slices.Clone(base), "--master-key", "c2VjcmV0"), "master key"},
		"no database":       {slices.Concat(mk, ak, pk), "missing database URL"},
		"no payload key":    {slices.Concat(db, mk, ak), "no payload key"},
		"bad CIDR":          {append(slices.Clone(base), "--allow-cidrs", "10.0.0.0/99"), "allow-cidrs"},
		"bad log format":    {append(slices.Clone(base), "--log-format", "xml"), "log-format"},
		"positional":        {append(slices.Clone(base), "extra"), "unexpected"},
		"secret not echoed": {append(slices.Clone(base), "--master-key", "c2VjcmV0LXZhbHVl"), "decodes"},
		"bad payload key":   {append(slices.Clone(base), "--payload-keys", key+",c2VjcmV0"), "payload key 2"},
		"payload on or off": {append(slices.Clone(base), "--payload-encryption", "maybe"), "want on or off"},
		"signing profile":   {append(slices.Clone(base), "--default-signing", `{"scheme":"hmac-sha256","encoding":"hex"}`), "signing.header"},
		"signing scheme":    {append(slices.Clone(base), "--default-signing", "hmac-sha1"), "signing.scheme"},
		"signing field":     {append(slices.Clone(base), "--default-signing", `{"scheme":"hmac-sha256","separator":";"}`), "separator"},
	} {
		t.Run(name, func(t *testing.T) {
			for _, env := range []string{"HOOKD_DATABASE_URL", "HOOKD_MASTER_KEY", "HOOKD_API_KEYS", "HOOKD_ALLOW_CIDRS", "HOOKD_PAYLOAD_KEYS", "HOOKD_PAYLOAD_ENCRYPTION"} {
				t.Setenv(env, "")
			}
			_, _, _, err := parseServeFlags("api", tc.args)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "c2VjcmV0") {
				t.Errorf("error shows the key: %v", err)
			}
		})
	}
}

// TestDefaultSigningFlag: --default-signing (or its variable) takes a
// JSON profile, normalized, or a scheme's name; without it endpoints are
// Standard Webhooks.
func TestDefaultSigningFlag(t *testing.T) {
	const key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	base := []string{"--database-url", "postgres://db/hookd", "--master-key", key, "--api-keys", "k", "--payload-keys", key}
	cfg, _, _, err := parseServeFlags("api", base)
	require.NoError(t, err)
	require.Equal(t, signing.Profile{}, cfg.DefaultSigning)
	cfg, _, _, err = parseServeFlags("api", append(slices.Clone(base), "--default-signing", `{"scheme":"hmac-sha256","header":"MailFrame-Signature","prefix":"sha256="}`))
	require.NoError(t, err)
	require.Equal(t, "MailFrame-Signature", cfg.DefaultSigning.Header)
	require.Equal(t, signing.EncodingHex, cfg.DefaultSigning.Encoding, "normalized")
	t.Setenv("HOOKD_DEFAULT_SIGNING", "standard-webhooks")
	cfg, _, _, err = parseServeFlags("serve", base)
	require.NoError(t, err)
	require.Equal(t, signing.StandardWebhooks, cfg.DefaultSigning)
	t.Setenv("HOOKD_DEFAULT_SIGNING", `{"scheme":"hmac-sha256","header":"X-Sig","content":"all"}`)
	_, _, _, err = parseServeFlags("serve", base)
	require.ErrorContains(t, err, "signing.content")
	_, _, _, err = parseServeFlags("worker", []string{"--default-signing", "standard-webhooks"})
	require.Error(t, err, "a worker creates no endpoints")
}

// TestServeTakesTheCircuitKnobs: the circuit's cooldowns hookd dev takes
// are every process's too (the API answers by them), checked the same
// way; the per-endpoint share is a worker's.
func TestServeTakesTheCircuitKnobs(t *testing.T) {
	const key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" // 32 bytes
	t.Setenv("HOOKD_DATABASE_URL", "postgres://hookd:pw@db/hookd")
	t.Setenv("HOOKD_MASTER_KEY", key)
	t.Setenv("HOOKD_PAYLOAD_KEYS", key)
	t.Setenv("HOOKD_CIRCUIT_MAX_COOLDOWN", "2h")
	w, _, _, err := parseServeFlags("worker", []string{"--circuit-cooldown", "90s"})
	if err != nil || w.Circuit.BaseCooldown != 90*time.Second || w.Circuit.MaxCooldown != 2*time.Hour || w.Circuit.Threshold == 0 {
		t.Errorf("worker circuit %+v, err %v", w.Circuit, err)
	}
	if _, _, _, err := parseServeFlags("serve", []string{"--api-keys", "k", "--circuit-cooldown", "3h"}); err == nil || !strings.Contains(err.Error(), "--circuit-cooldown") {
		t.Errorf("a cooldown above the maximum: %v", err)
	}
	if w, _, _, err := parseServeFlags("worker", []string{"--max-attempts-per-endpoint", "8"}); err != nil || w.MaxAttemptsPerEndpoint != 8 {
		t.Errorf("--max-attempts-per-endpoint 8: %d, %v", w.MaxAttemptsPerEndpoint, err)
	}
	if a, _, _, err := parseServeFlags("api", []string{"--api-keys", "k", "--circuit-cooldown", "1m"}); err != nil || a.Circuit.BaseCooldown != time.Minute {
		t.Errorf("api circuit %+v, err %v", a.Circuit, err)
	}
	if _, _, _, err := parseServeFlags("api", []string{"--api-keys", "k", "--circuit-cooldown", "0s"}); err == nil {
		t.Error("api accepted a zero --circuit-cooldown")
	}
	if _, _, _, err := parseServeFlags("api", []string{"--api-keys", "k", "--max-attempts-per-endpoint", "8"}); err == nil {
		t.Error("api accepted --max-attempts-per-endpoint")
	}
}
