package app

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCheckWindows(t *testing.T) {
	const day = 24 * time.Hour
	require.NoError(t, checkWindows(7*day, 0), "the defaults agree")
	require.NoError(t, checkWindows(30*day, 25*day))
	require.NoError(t, checkWindows(7*day, 118*time.Hour))

	for _, c := range []struct {
		retention, deadLetter time.Duration
		want                  string
	}{
		{7 * day, 30 * day, "dead-letter retention 720h0m0s does not fit the dedup window"},
		{7 * day, 119 * time.Hour, "so it must be 1h0m0s to 118h31m0s"},
		{7 * day, time.Minute, "dead-letter retention 1m0s"},
		{day, 0, "retention 24h0m0s is shorter than a delivery's longest run on the default retry schedule (49h29m0s)"},
	} {
		err := checkWindows(c.retention, c.deadLetter)
		require.ErrorContains(t, err, c.want)
		require.NotContains(t, err.Error(), "\n", "one line")
	}
}

// hookd dev refuses windows that disagree before it starts anything.
func TestStartDevRefusesDisagreeingWindows(t *testing.T) {
	_, err := StartDev(t.Context(), DevConfig{DataDir: t.TempDir(), HTTPAddr: "127.0.0.1:0", TemporalAddr: "127.0.0.1:0", DeadLetterRetention: 30 * 24 * time.Hour})
	require.ErrorContains(t, err, "does not fit the dedup window")
	cfg := ServeConfig{Worker: true, DatabaseURL: "postgres://x", MasterKey: []byte("k"), Payload: PayloadConfig{Off: true}, DeadLetterRetention: 30 * 24 * time.Hour}
	require.ErrorContains(t, cfg.Validate(), "does not fit the dedup window")
}
