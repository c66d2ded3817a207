package circuit

import "time"

// Verdict is whether an endpoint takes an attempt now; if not, why and
// until when.
type Verdict struct {
	// Allowed: an attempt may be sent now; only as the circuit's probe
	// if Probe (the cooldown is over, or the last probe's lease lapsed).
	Allowed, Probe bool
	// Disabled: the endpoint's switch is off.
	Disabled bool
	// Wait is when an attempt the circuit holds back asks again.
	Wait time.Time
}

// Flowing reports whether attempts flow freely: allowed, and not only as
// a probe. A wake-up of waiting deliveries asks this.
func (v Verdict) Flowing() bool { return v.Allowed && !v.Probe }

// TakesAttempts is the one rule of whether an endpoint takes attempts
// now: an endpoint switched off takes none (an operator's redrive goes
// through anyway); otherwise its breaker b decides, as read, without
// taking a probe. The attempt's gate, the wake-ups' second look and the
// API's test route all ask it; the gate that finds Probe then takes the
// probe's lease in the store (Breaker.Admit with a lease).
func TakesAttempts(enabled, redrive bool, b Breaker, p Policy, now time.Time) Verdict {
	if !enabled && !redrive {
		return Verdict{Disabled: true}
	}
	_, adm := b.Admit(p, now, 0)
	return Verdict{Allowed: adm.Allowed, Probe: adm.Probe, Wait: adm.Wait}
}
