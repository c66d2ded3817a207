// Package scaleout tests hookd as separate processes, the way production
// runs it: one Temporal server process (`hookd dev --only-temporal`), a
// PostgreSQL endpoint store, two `hookd worker` processes and one `hookd
// api` process. It has no code of its own, only tests.
package scaleout
