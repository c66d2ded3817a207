package wake

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A handful are woken at once; a backlog in groups of Burst, the last
// group within Window.
func TestSlots(t *testing.T) {
	assert.Zero(t, Spread(0))
	assert.Zero(t, Spread(Burst), "one group: all at once")
	for _, n := range []int{Burst + 1, 95, 100_000} {
		assert.Less(t, Spread(n), Window, "n=%d", n)
		prev := time.Duration(-1)
		for i := range min(n, 1000) {
			s := Slot(i, n)
			assert.GreaterOrEqual(t, s, prev, "slots do not go back")
			if i%Burst != 0 {
				assert.Equal(t, prev, s, "n=%d: %d shares its group's slot", n, i)
			}
			prev = s
		}
	}
	assert.Equal(t, Window/2, Slot(Burst, 2*Burst), "the second of two groups halfway")
}
