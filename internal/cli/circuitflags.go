package cli

import "github.com/hookd/hookd/internal/circuit"

// circuitFlags defines the circuit breaker's knobs on fs, into p: the same
// for hookd dev and every process that runs a worker.
func circuitFlags(fs envFlags, p *circuit.Policy) {
	*p = circuit.DefaultPolicy()
	fs.duration(&p.BaseCooldown, "circuit-cooldown", "HOOKD_CIRCUIT_COOLDOWN", circuit.DefaultPolicy().BaseCooldown, "how long an endpoint's circuit stays open after it trips (doubles on each re-open)")
	fs.duration(&p.MaxCooldown, "circuit-max-cooldown", "HOOKD_CIRCUIT_MAX_COOLDOWN", circuit.DefaultPolicy().MaxCooldown, "the cap on the doubling cooldown")
}

// checkCircuit refuses cooldowns that are not positive and ordered.
func checkCircuit(p circuit.Policy) error {
	if p.BaseCooldown <= 0 || p.MaxCooldown < p.BaseCooldown {
		return usagef("--circuit-cooldown must be positive and at most --circuit-max-cooldown")
	}
	return nil
}
