// Package signing implements the signatures hookd sends and receivers
// verify. By default they are Standard Webhooks signatures
// (https://www.standardwebhooks.com): symmetric "v1" HMAC-SHA256 signatures
// over "{webhook-id}.{webhook-timestamp}.{body}", asymmetric "v1a" ed25519
// signatures, secret generation and parsing, and verification with a
// timestamp tolerance.
//
// A Profile chooses the scheme: Standard Webhooks, or hmac-sha256, an
// HMAC-SHA256 of the raw body (or of "{timestamp}.{body}") in a header,
// prefix and encoding of the receiver's contract, with the delivery ID,
// event ID, event type and attempt in headers it names. Profile.Sign sets
// a message's headers; a Verifier with the Profile checks them.
//
// It imports only the standard library, so a receiver can use it without
// pulling in hookd's sender side or Temporal.
package signing
