package app

import (
	"log/slog"
	"math"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// hookd dev tunes the collector unless the environment chose: GOGC or
// GOMEMLIMIT set leaves the runtime's settings alone.
func TestTuneGCLeavesTheUsersChoice(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) })
	log := slog.New(slog.DiscardHandler)

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	assert.True(t, tuneGC(log))
	assert.Equal(t, devGCPercent, debug.SetGCPercent(100))
	assert.Equal(t, int64(devMemoryLimit), debug.SetMemoryLimit(math.MaxInt64))

	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "200")
			assert.False(t, tuneGC(log))
			assert.Equal(t, 100, debug.SetGCPercent(100), "GOGC untouched")
			assert.Equal(t, int64(math.MaxInt64), debug.SetMemoryLimit(math.MaxInt64), "no limit set")
		})
	}
}
