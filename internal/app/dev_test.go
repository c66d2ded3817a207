package app

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/namespace"
)

// DevConfig.Validate names the first missing field, refuses windows that
// do not fit, and fills in the defaults.
func TestDevConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  DevConfig
		want string
	}{
		{DevConfig{HTTPAddr: "a", TemporalAddr: "b"}, "missing data dir"},
		{DevConfig{DataDir: "d", TemporalAddr: "b"}, "missing HTTP address"},
		{DevConfig{DataDir: "d", HTTPAddr: "a"}, "missing Temporal address"},
		{DevConfig{DataDir: "d", HTTPAddr: "a", TemporalAddr: "b", Retention: time.Hour}, "retention 1h0m0s is shorter"},
	} {
		require.ErrorContains(t, c.cfg.Validate(), c.want)
	}
	cfg := DevConfig{DataDir: "d", HTTPAddr: "a", TemporalAddr: "b"}
	require.NoError(t, cfg.Validate())
	require.Equal(t, "default", cfg.Namespace)
	require.Equal(t, namespace.DefaultRetention, cfg.Retention)
	require.NotNil(t, cfg.Logger)
}
