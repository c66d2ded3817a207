// Package reference is hookd's reference receiver: a small HTTP server
// built on the receiver kit, used by hookd's end-to-end tests and demos and
// served by `hookd receiver`.
//
// It verifies every delivery, records it in a SQLite inbox
// (modernc.org/sqlite) together with one business effect (a row in the
// effects table, written in the same transaction), and answers only after
// the commit, so each delivery ID has at most one effect however often hookd
// sends it. Fault injection (failures, Retry-After, delays, dropping the
// connection after the commit, changeable at run time with SetFaults) lets
// tests exercise hookd's retries, and GET /stats reports what happened.
package reference
