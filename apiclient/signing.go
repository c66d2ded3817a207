package apiclient

import "github.com/hookd/hookd/apiclient/wire"

// SigningProfile is how an endpoint's attempts are signed: Scheme
// "standard-webhooks" (no other field) or "hmac-sha256" with the
// signature Header (required), Prefix, Encoding ("hex" or "base64"),
// Content ("body" or "timestamp.body") and the names of the timestamp,
// delivery-ID, event-ID, event-type and attempt headers. Answers show
// every field, defaults filled in.
type SigningProfile = wire.SigningProfile
