package circuit

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func TestOpensAfterFiveFailures(t *testing.T) {
	var b Breaker
	var ch Change
	for i := 1; i <= DefaultPolicy().Threshold; i++ {
		if _, adm := b.Admit(DefaultPolicy(), t0, time.Minute); !adm.Allowed {
			t.Fatalf("attempt %d refused while closed", i)
		}
		b, ch = b.Record(DefaultPolicy(), false, t0)
		if want := (i == DefaultPolicy().Threshold); (ch == Opened) != want {
			t.Fatalf("after %d failures change = %v", i, ch)
		}
	}
	if b.State != Open || !b.OpenUntil.Equal(t0.Add(DefaultPolicy().BaseCooldown)) {
		t.Fatalf("breaker = %+v", b)
	}
	if _, adm := b.Admit(DefaultPolicy(), t0.Add(59*time.Second), time.Minute); adm.Allowed || !adm.Wait.Equal(t0.Add(DefaultPolicy().BaseCooldown)) {
		t.Fatalf("admitted during cooldown: %+v", adm)
	}
}

func TestSuccessResetsCount(t *testing.T) {
	var b Breaker
	for range DefaultPolicy().Threshold - 1 {
		b, _ = b.Record(DefaultPolicy(), false, t0)
	}
	b, _ = b.Record(DefaultPolicy(), true, t0)
	if !b.Quiet() {
		t.Fatalf("not reset: %+v", b)
	}
	b, ch := b.Record(DefaultPolicy(), false, t0)
	if ch != Unchanged || b.State != Closed {
		t.Fatalf("one failure after reset opened it: %+v", b)
	}
}

// Exactly one probe passes after the cooldown; a failed probe doubles the
// cooldown up to the cap; a reachable answer closes the circuit.
func TestCooldownDoublesToCapThenRecovers(t *testing.T) {
	b := Breaker{State: Open, Failures: DefaultPolicy().Threshold, Cooldown: DefaultPolicy().BaseCooldown, OpenUntil: t0.Add(DefaultPolicy().BaseCooldown)}
	now := t0
	want := []time.Duration{2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 10 * time.Minute, 10 * time.Minute}
	for i, cooldown := range want {
		now = b.OpenUntil
		var adm Admission
		b, adm = b.Admit(DefaultPolicy(), now, 30*time.Second)
		if !adm.Allowed || !adm.Probe {
			t.Fatalf("round %d: probe not admitted: %+v", i, adm)
		}
		if _, second := b.Admit(DefaultPolicy(), now.Add(time.Second), 30*time.Second); second.Allowed {
			t.Fatalf("round %d: a second attempt passed while the probe is out", i)
		}
		var ch Change
		b, ch = b.Record(DefaultPolicy(), false, now)
		if ch != Reopened || b.Cooldown != cooldown || !b.OpenUntil.Equal(now.Add(cooldown)) {
			t.Fatalf("round %d: change %v, breaker %+v, want cooldown %s", i, ch, b, cooldown)
		}
	}
	b, _ = b.Admit(DefaultPolicy(), b.OpenUntil, 30*time.Second)
	b, ch := b.Record(DefaultPolicy(), true, b.OpenUntil)
	if ch != Recovered || !b.Quiet() {
		t.Fatalf("probe success: change %v, breaker %+v", ch, b)
	}
}

// A prober that dies loses its lease; the next attempt becomes the probe.
func TestProbeLeaseLapses(t *testing.T) {
	b := Breaker{State: Open, Cooldown: DefaultPolicy().BaseCooldown, OpenUntil: t0}
	b, adm := b.Admit(DefaultPolicy(), t0, 20*time.Second)
	if !adm.Probe {
		t.Fatal("no probe")
	}
	if _, adm = b.Admit(DefaultPolicy(), t0.Add(19*time.Second), 20*time.Second); adm.Allowed {
		t.Fatal("admitted within the lease")
	}
	if _, adm = b.Admit(DefaultPolicy(), t0.Add(20*time.Second), 20*time.Second); !adm.Allowed || !adm.Probe {
		t.Fatalf("lapsed lease not taken over: %+v", adm)
	}
}

// Attempts that were in flight when the circuit opened fail later; they
// must not re-open it or double the cooldown.
func TestLateFailuresDoNotReopen(t *testing.T) {
	var b Breaker
	for range DefaultPolicy().Threshold {
		b, _ = b.Record(DefaultPolicy(), false, t0)
	}
	opened := b
	b, ch := b.Record(DefaultPolicy(), false, t0.Add(time.Second))
	if ch != Unchanged || b.Cooldown != opened.Cooldown || !b.OpenUntil.Equal(opened.OpenUntil) {
		t.Fatalf("late failure changed the open circuit: %v %+v", ch, b)
	}
}

// A breaker never written is closed, as one recorded closed; open and
// half-open are not.
func TestIsClosed(t *testing.T) {
	for state, want := range map[State]bool{"": true, Closed: true, Open: false, HalfOpen: false} {
		if got := (Breaker{State: state}).IsClosed(); got != want {
			t.Errorf("%q: IsClosed() = %v, want %v", state, got, want)
		}
	}
}

// The one rule: off takes nothing unless redriven; a closed or unwritten
// breaker flows; open holds back until its cooldown's end, then takes a
// probe; half-open with a probe out holds back.
func TestTakesAttempts(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := DefaultPolicy()
	open := Breaker{State: Open, Failures: 5, OpenUntil: now.Add(time.Minute)}
	for name, tc := range map[string]struct {
		enabled, redrive bool
		b                Breaker
		flowing, allowed bool
	}{
		"off":               {false, false, Breaker{}, false, false},
		"off, redriven":     {false, true, Breaker{}, true, true},
		"never written":     {true, false, Breaker{}, true, true},
		"closed":            {true, false, Breaker{State: Closed, Failures: 2}, true, true},
		"open":              {true, false, open, false, false},
		"open, cooled down": {true, false, Breaker{State: Open, OpenUntil: now}, false, true},
		"probe out":         {true, false, Breaker{State: HalfOpen, ProbeUntil: now.Add(time.Second)}, false, false},
	} {
		v := TakesAttempts(tc.enabled, tc.redrive, tc.b, p, now)
		if v.Flowing() != tc.flowing || v.Allowed != tc.allowed {
			t.Errorf("%s: %+v", name, v)
		}
	}
	if v := TakesAttempts(true, false, open, p, now); !v.Wait.Equal(open.OpenUntil) {
		t.Errorf("open waits until %s, got %s", open.OpenUntil, v.Wait)
	}
}
