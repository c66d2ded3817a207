package cli

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEgressProxyFlag: --egress-proxy (or its variable) on a worker and
// serve, not on the API alone; a refused URL is named by the flag, never
// repeated; hookd dev refuses one too.
func TestEgressProxyFlag(t *testing.T) {
	const key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	base := []string{"--database-url", "postgres://db/hookd", "--master-key", key, "--payload-keys", key}
	cfg, _, _, err := parseServeFlags("worker", base)
	require.NoError(t, err)
	assert.Nil(t, cfg.EgressProxy, "no flag, no proxy")

	cfg, _, _, err = parseServeFlags("worker", append(slices.Clone(base), "--egress-proxy", "http://egress:pr0xy@proxy.internal:3128"))
	require.NoError(t, err)
	require.NotNil(t, cfg.EgressProxy)
	assert.Equal(t, "proxy.internal:3128", cfg.EgressProxy.Host)

	t.Setenv("HOOKD_EGRESS_PROXY", "socks5://egress:pr0xy@10.0.0.9:1080")
	cfg, _, _, err = parseServeFlags("serve", append(slices.Clone(base), "--api-keys", "k"))
	require.NoError(t, err)
	assert.Equal(t, "socks5", cfg.EgressProxy.Scheme)

	t.Setenv("HOOKD_EGRESS_PROXY", "ftp://egress:pr0xy@proxy")
	_, _, _, err = parseServeFlags("worker", base)
	require.ErrorContains(t, err, "egress-proxy: the scheme must be http, https or socks5")
	assert.NotContains(t, err.Error(), "pr0xy")

	_, _, _, err = parseServeFlags("api", append(slices.Clone(base), "--api-keys", "k", "--egress-proxy", "http://proxy:3128"))
	require.Error(t, err, "the API sends nothing")

	t.Setenv("HOOKD_DATA_DIR", t.TempDir())
	code, _, errOut := hookd("dev", "--egress-proxy", "http://egress:pr0xy@proxy:99999")
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, "egress-proxy: the port must be 1-65535")
	assert.NotContains(t, errOut, "pr0xy")
}
