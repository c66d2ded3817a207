package cli

import (
	"time"

	"github.com/hookd/hookd/internal/activities"
	"github.com/hookd/hookd/internal/circuit"
)

// circuitFlags defines the circuit breaker's knobs on fs, into p: the same
// for every process, as the workers trip circuits by them and the API
// answers by them whether an endpoint takes attempts now.
func circuitFlags(fs envFlags, p *circuit.Policy) {
	*p = circuit.DefaultPolicy()
	fs.duration(&p.BaseCooldown, "circuit-cooldown", "HOOKD_CIRCUIT_COOLDOWN", circuit.DefaultPolicy().BaseCooldown, "how long an endpoint's circuit stays open after it trips (doubles on each re-open)")
	fs.duration(&p.MaxCooldown, "circuit-max-cooldown", "HOOKD_CIRCUIT_MAX_COOLDOWN", circuit.DefaultPolicy().MaxCooldown, "the cap on the doubling cooldown")
}

// autoDisableFlag defines --auto-disable-after on fs, into d.
func autoDisableFlag(fs envFlags, d *time.Duration) {
	fs.duration(d, "auto-disable-after", "HOOKD_AUTO_DISABLE_AFTER", activities.DefaultAutoDisableAfter, "disable an endpoint whose attempts kept failing with no success for this long (0 never does; a 410 Gone disables at once)")
}

// checkAutoDisable refuses a negative --auto-disable-after.
func checkAutoDisable(d time.Duration) error {
	if d < 0 {
		return usagef("--auto-disable-after must not be negative")
	}
	return nil
}

// checkCircuit refuses cooldowns that are not positive and ordered.
func checkCircuit(p circuit.Policy) error {
	if p.BaseCooldown <= 0 || p.MaxCooldown < p.BaseCooldown {
		return usagef("--circuit-cooldown must be positive and at most --circuit-max-cooldown")
	}
	return nil
}
