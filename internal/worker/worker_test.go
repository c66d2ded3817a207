package worker

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Each endpoint gets a quarter of the worker's attempts by default, at
// least one; an explicit share wins, a negative one lifts the bound.
func TestPerEndpointShare(t *testing.T) {
	for _, c := range []struct {
		opts Options
		want int
	}{
		{Options{}, 64},
		{Options{MaxConcurrentAttempts: 10}, 2},
		{Options{MaxConcurrentAttempts: 3}, 1},
		{Options{MaxConcurrentAttempts: 1}, 1},
		{Options{MaxConcurrentAttempts: 100, MaxAttemptsPerEndpoint: 40}, 40},
		{Options{MaxAttemptsPerEndpoint: -1}, 0},
	} {
		assert.Equal(t, c.want, c.opts.perEndpoint(), "%+v", c.opts)
	}
}
