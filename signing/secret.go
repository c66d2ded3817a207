package signing

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// SecretPrefix starts every symmetric Standard Webhooks secret.
const SecretPrefix = "whsec_"

// Key lengths a symmetric secret may have, in bytes, per the specification.
const (
	MinSecretBytes = 24
	MaxSecretBytes = 64
)

// ErrInvalidSecret reports a secret that is not "whsec_" followed by the
// base64 of 24 to 64 bytes.
var ErrInvalidSecret = errors.New("invalid webhook secret")

// NewSecret returns a fresh secret of 32 random bytes in "whsec_" form.
func NewSecret() (string, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("generate secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// DecodeSecret returns the HMAC key of a "whsec_" secret. The prefix is
// optional, as the reference libraries accept a bare base64 key too.
func DecodeSecret(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		return nil, fmt.Errorf("%w: not base64", ErrInvalidSecret)
	}
	if len(key) < MinSecretBytes || len(key) > MaxSecretBytes {
		return nil, fmt.Errorf("%w: key is %d bytes, want %d-%d", ErrInvalidSecret, len(key), MinSecretBytes, MaxSecretBytes)
	}
	return key, nil
}
