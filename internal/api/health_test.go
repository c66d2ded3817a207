package api

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/stats"
)

// A health's attempt window shows latencies in milliseconds, and null
// rate and latencies without attempts.
func TestWindowOut(t *testing.T) {
	b, err := json.Marshal(windowOut(stats.Window{Attempts: 4, Successes: 3, SuccessRate: 0.75, P50: 6 * time.Millisecond, P99: 7960 * time.Microsecond}))
	require.NoError(t, err)
	require.JSONEq(t, `{"attempts":4,"successes":3,"success_rate":0.75,"p50_ms":6,"p99_ms":7.96}`, string(b))
	b, err = json.Marshal(windowOut(stats.Window{}))
	require.NoError(t, err)
	require.JSONEq(t, `{"attempts":0,"successes":0,"success_rate":null,"p50_ms":null,"p99_ms":null}`, string(b))
}
