// Package secretbox encrypts small values at rest with AES-256-GCM under a
// master key. Every sealed value starts with the ID of the key that sealed
// it, so a keyring can hold old keys for opening while new values are sealed
// with the current one (key rotation).
package secretbox

import (
	"errors"
	"fmt"

	"github.com/hookd/hookd/internal/keyring"
)

// KeySize is the length of a master key in bytes (AES-256).
const KeySize = keyring.KeySize

// DefaultKeyID is the key ID New gives its single key.
const DefaultKeyID byte = 1

// ErrDecrypt is returned when a value cannot be opened: it is truncated,
// was sealed under an unknown key, or was tampered with.
var ErrDecrypt = errors.New("secretbox: cannot decrypt value")

// Box seals and opens values. It is safe for concurrent use.
type Box struct {
	ring *keyring.Ring[byte]
}

// New returns a Box with one key, DefaultKeyID.
func New(key []byte) (*Box, error) {
	return NewKeyring(DefaultKeyID, map[byte][]byte{DefaultKeyID: key})
}

// NewKeyring returns a Box that seals with keys[current] and opens values
// sealed with any key in keys.
func NewKeyring(current byte, keys map[byte][]byte) (*Box, error) {
	ring := keyring.New[byte]()
	for id, key := range keys {
		if err := ring.Add(id, key); err != nil {
			return nil, fmt.Errorf("secretbox: %w", err)
		}
	}
	if err := ring.SetCurrent(current); err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	return &Box{ring: ring}, nil
}

// Seal encrypts plaintext with a fresh random nonce. additional is
// authenticated but not stored (e.g. the ID of the row the value belongs
// to, so a value copied to another row does not open). The result is
// keyID || nonce || ciphertext+tag.
func (b *Box) Seal(plaintext, additional []byte) ([]byte, error) {
	current, _ := b.ring.Current()
	out, err := b.ring.Seal([]byte{current}, plaintext, additional)
	if err != nil {
		return nil, fmt.Errorf("secretbox: %w", err)
	}
	return out, nil
}

// Open decrypts a value made by Seal with the same additional data. Its
// error never contains the value.
func (b *Box) Open(sealed, additional []byte) ([]byte, error) {
	if len(sealed) == 0 {
		return nil, ErrDecrypt
	}
	plain, err := b.ring.Open(sealed[0], sealed[1:], additional)
	if err != nil {
		return nil, ErrDecrypt
	}
	return plain, nil
}
