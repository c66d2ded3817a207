// Package reliability proves hookd's guarantees under the faults it exists
// for, with hookd as a real process: kill -9 and restart, receiver outages,
// lost acknowledgements, poison endpoints, Retry-After. Every scenario
// delivers to the reference receiver, which deduplicates by webhook-id and
// counts business effects, and reports accepted, delivered, duplicates,
// effects, dead letters and lost events.
//
// `make test` runs a fast subset; `make test-reliability` runs the whole
// suite at full size (HOOKD_RELIABILITY=full).
package reliability
