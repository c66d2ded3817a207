package activities

import (
	"sync"
	"time"
)

// shareSlack is how long after an in-flight attempt's deadline a turn
// starts: the attempt still classifies and records its result then.
const shareSlack = 100 * time.Millisecond

// LimitEndpoints bounds the attempts one endpoint has in flight through a
// in this process, first attempts and retries together, to n; zero or
// less leaves them unbounded. The worker sets it from its concurrency
// (worker.New); call it before the activities run. It is a function, not
// a method: every exported method of Activities registers as an activity.
//
// An attempt over its endpoint's share sends nothing and holds no slot:
// it is deferred, like an attempt an open circuit holds back, so it
// counts nothing against the delivery's budget and its delivery waits on
// a timer for its turn. Waiting in the activity instead would keep the
// worker slot the share exists to free, and failing it retryably would
// spend an attempt of the schedule on a request never sent: a delivery
// could exhaust its budget without its receiver seeing it.
func LimitEndpoints(a *Activities, n int) {
	if n <= 0 {
		a.shares = nil
		return
	}
	a.shares = &endpointShares{limit: n, byEndpoint: map[string]*endpointShare{}}
}

// endpointShares counts the attempts in flight per endpoint. A nil
// *endpointShares bounds nothing.
type endpointShares struct {
	limit      int
	mu         sync.Mutex
	byEndpoint map[string]*endpointShare
}

// endpointShare is one endpoint's attempts in flight and the queue of
// turns given to the attempts it refused.
type endpointShare struct {
	deadlines []time.Time // of the attempts in flight
	next      time.Time   // the turn the next refused attempt gets
}

// take reserves a slot for an attempt to endpointID starting at now and
// ending by now+timeout. When the endpoint has its share in flight, take
// refuses and says when to come back: turns start as the earliest attempt
// in flight reaches its deadline, spaced by timeout/limit, the pace at
// which slots free when every attempt takes its whole timeout; so the
// refused come back about as fast as slots free, not all at once. first
// reports the first refusal of a busy spell.
func (s *endpointShares) take(endpointID string, now time.Time, timeout time.Duration) (release func(), turn time.Time, ok, first bool) {
	if s == nil {
		return func() {}, time.Time{}, true, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.byEndpoint[endpointID]
	if e == nil {
		e = &endpointShare{}
		s.byEndpoint[endpointID] = e
	}
	if len(e.deadlines) < s.limit {
		deadline := now.Add(timeout)
		e.deadlines = append(e.deadlines, deadline)
		var once sync.Once
		return func() { once.Do(func() { s.release(endpointID, deadline) }) }, time.Time{}, true, false
	}
	earliest := e.deadlines[0]
	for _, d := range e.deadlines[1:] {
		if d.Before(earliest) {
			earliest = d
		}
	}
	first = !e.next.After(now)
	turn = maxTime(e.next, earliest.Add(shareSlack), now)
	e.next = turn.Add(max(timeout/time.Duration(s.limit), time.Millisecond))
	return nil, turn, false, first
}

// release frees the slot of the attempt ending by deadline, and forgets an
// endpoint with nothing in flight: its next attempt is let through anyway.
func (s *endpointShares) release(endpointID string, deadline time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.byEndpoint[endpointID]
	if e == nil {
		return
	}
	for i, d := range e.deadlines {
		if d.Equal(deadline) {
			e.deadlines = append(e.deadlines[:i], e.deadlines[i+1:]...)
			break
		}
	}
	if len(e.deadlines) == 0 {
		delete(s.byEndpoint, endpointID)
	}
}

// maxTime returns the latest of t and ts.
func maxTime(t time.Time, ts ...time.Time) time.Time {
	for _, u := range ts {
		if u.After(t) {
			t = u
		}
	}
	return t
}
