package reference

import (
	"sync"
)

// faultState holds the current Faults and what they have used up.
type faultState struct {
	mu      sync.Mutex
	f       Faults
	failed  int // FailFirst failures injected since the last set
	dropped int // drops since the last set
}

func (s *faultState) set(f Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.f, s.failed, s.dropped = f.withDefaults(), 0, 0
}

func (s *faultState) get() Faults {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f
}

// failure returns the status to fail this request with, or 0.
func (s *faultState) failure() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f.AlwaysFail != 0 {
		return s.f.AlwaysFail
	}
	if s.failed < s.f.FailFirst {
		s.failed++
		return s.f.FailStatus
	}
	return 0
}

// drop reports whether to drop the connection after this commit.
func (s *faultState) drop() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f.DropAfterCommit == DropAlways {
		return true
	}
	if s.dropped < s.f.DropAfterCommit {
		s.dropped++
		return true
	}
	return false
}
