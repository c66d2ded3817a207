// Package signing implements Standard Webhooks signatures
// (https://www.standardwebhooks.com): symmetric "v1" HMAC-SHA256 signatures
// over "{webhook-id}.{webhook-timestamp}.{body}", asymmetric "v1a" ed25519
// signatures, secret generation and parsing, and verification with a
// timestamp tolerance.
//
// It imports only the standard library, so a receiver can use it without
// pulling in hookd's sender side or Temporal.
package signing
