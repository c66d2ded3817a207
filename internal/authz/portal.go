package authz

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
)

// Prefixes of the consumer portal's credentials. Neither is a bearer
// token: a sign-in link is exchanged once for a session, and a session
// lives in a browser cookie.
const (
	PortalLinkPrefix    = "hpl_"
	PortalSessionPrefix = "hps_"
)

// NewPortalLinkToken returns a new portal sign-in link token:
// PortalLinkPrefix and 32 random bytes. Store it with HashToken.
func NewPortalLinkToken() (string, error) { return newSecret(PortalLinkPrefix) }

// NewPortalSessionToken returns a new portal session token:
// PortalSessionPrefix and 32 random bytes. Store it with HashToken.
func NewPortalSessionToken() (string, error) { return newSecret(PortalSessionPrefix) }

func newSecret(prefix string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("new %s token: %w", prefix, err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b), nil
}
