package activities

import (
	"testing"

	"github.com/hookd/hookd/internal/testkit"
	"github.com/stretchr/testify/require"
)

// New refuses a configuration without its required fields, naming the
// missing one.
func TestNewValidates(t *testing.T) {
	eps := newFakeEndpoints(t)
	_, err := New(Config{Temporal: testkit.DownTemporal{}})
	require.ErrorContains(t, err, "missing endpoint store")
	_, err = New(Config{Endpoints: eps})
	require.ErrorContains(t, err, "missing Temporal client")
	a, err := New(Config{Endpoints: eps, Temporal: testkit.DownTemporal{}})
	require.NoError(t, err)
	require.NotNil(t, a)
}
