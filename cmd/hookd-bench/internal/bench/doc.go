// Package bench measures hookd's cost per delivery on one machine: it runs
// the embedded `hookd dev` wiring in-process with a loopback receiver, posts
// events through the real HTTP API, and compares the result with a naive
// Temporal delivery (the stock temporaltest server, one regular activity per
// delivery) run in the same invocation. The hookd-bench command
// (cmd/hookd-bench) prints its report; hookd itself never links this package.
package bench
