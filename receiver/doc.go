// Package receiver is hookd's receiver kit: what an application that
// receives hookd deliveries needs to commit each one exactly once.
//
// Delivery from hookd is at-least-once: a lost acknowledgement makes hookd
// send the same delivery again, with the same webhook-id and the same bytes.
// The kit turns that into exactly-once business effects:
//
//   - Verify and Middleware check the Standard Webhooks signature over the raw
//     body before anything else, so a stranger who learns a delivery ID
//     cannot obtain a 2xx or probe the inbox. NewProfileVerifier checks an
//     endpoint's signing profile instead (the hmac-sha256 scheme).
//   - Inbox records each delivery in a durable table and runs the caller's
//     own work in the same database transaction; only after the commit does
//     the receiver answer 2xx. A resend with the same ID and body is a
//     duplicate (2xx, no new work); the same ID with a different body is
//     quarantined.
//   - Worker processes the inbox rows afterwards, with its own retries,
//     backoff and failure state, independent of hookd's delivery retries.
//
// The package imports only the standard library, database/sql and hookd's
// signing package, so it can be used without Temporal or any of hookd's
// sender side. Bring your own database/sql driver (SQLite or PostgreSQL).
package receiver
