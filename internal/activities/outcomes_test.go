package activities

import (
	"fmt"
	"testing"
	"time"

	"github.com/hookd/hookd/internal/delivery"
)

func TestLocalOutcomesForgetTheOldestAndTheExpired(t *testing.T) {
	var o localOutcomes
	now := time.Now()
	for i := range outcomesKept + 1 {
		o.put(fmt.Sprint(i), delivery.Attempt{Number: i}, now)
	}
	if _, ok := o.get("0", now); ok {
		t.Error("the oldest is kept past outcomesKept")
	}
	if at, ok := o.get("1", now); !ok || at.Number != 1 {
		t.Errorf("take 1: %v %v, want attempt 1", at, ok)
	}
	if at, ok := o.get("1", now); !ok || at.Number != 1 {
		t.Errorf("get 1 again: %v %v, want attempt 1: a completion can be refused twice", at, ok)
	}
	if _, ok := o.get("2", now.Add(outcomeTTL+time.Second)); ok {
		t.Error("an expired outcome answered")
	}
	if len(o.m) > outcomesKept {
		t.Errorf("%d kept, want at most %d", len(o.m), outcomesKept)
	}
}

func TestLocalOutcomesOutsideALocalActivityAttemptEachTime(t *testing.T) {
	var o localOutcomes
	n := 0
	for range 2 {
		o.once(t.Context(), time.Now(), func() delivery.Attempt { n++; return delivery.Attempt{} })
	}
	if n != 2 {
		t.Errorf("%d attempts, want 2", n)
	}
}
