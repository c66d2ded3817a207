// Package secretbox encrypts small values at rest with AES-256-GCM under a
// master key. Every sealed value starts with the ID of the key that sealed
// it, so a keyring can hold old keys for opening while new values are sealed
// with the current one (key rotation).
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// KeySize is the length of a master key in bytes (AES-256).
const KeySize = 32

// DefaultKeyID is the key ID New gives its single key.
const DefaultKeyID byte = 1

// ErrDecrypt is returned when a value cannot be opened: it is truncated,
// was sealed under an unknown key, or was tampered with.
var ErrDecrypt = errors.New("secretbox: cannot decrypt value")

// Box seals and opens values. It is safe for concurrent use.
type Box struct {
	current byte
	aeads   map[byte]cipher.AEAD
}

// New returns a Box with one key, DefaultKeyID.
func New(key []byte) (*Box, error) {
	return NewKeyring(DefaultKeyID, map[byte][]byte{DefaultKeyID: key})
}

// NewKeyring returns a Box that seals with keys[current] and opens values
// sealed with any key in keys.
func NewKeyring(current byte, keys map[byte][]byte) (*Box, error) {
	if _, ok := keys[current]; !ok {
		return nil, fmt.Errorf("secretbox: current key %d is not in the keyring", current)
	}
	b := &Box{current: current, aeads: make(map[byte]cipher.AEAD, len(keys))}
	for id, key := range keys {
		if len(key) != KeySize {
			return nil, fmt.Errorf("secretbox: key %d is %d bytes, want %d", id, len(key), KeySize)
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, fmt.Errorf("secretbox: key %d: %w", id, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("secretbox: key %d: %w", id, err)
		}
		b.aeads[id] = aead
	}
	return b, nil
}

// Seal encrypts plaintext with a fresh random nonce. additional is
// authenticated but not stored (e.g. the ID of the row the value belongs
// to, so a value copied to another row does not open). The result is
// keyID || nonce || ciphertext+tag.
func (b *Box) Seal(plaintext, additional []byte) ([]byte, error) {
	aead := b.aeads[b.current]
	out := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(plaintext)+aead.Overhead())
	out[0] = b.current
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, fmt.Errorf("secretbox: nonce: %w", err)
	}
	return aead.Seal(out, out[1:], plaintext, additional), nil
}

// Open decrypts a value made by Seal with the same additional data. Its
// error never contains the value.
func (b *Box) Open(sealed, additional []byte) ([]byte, error) {
	if len(sealed) == 0 {
		return nil, ErrDecrypt
	}
	aead, ok := b.aeads[sealed[0]]
	if !ok || len(sealed) < 1+aead.NonceSize()+aead.Overhead() {
		return nil, ErrDecrypt
	}
	nonce, ct := sealed[1:1+aead.NonceSize()], sealed[1+aead.NonceSize():]
	plain, err := aead.Open(nil, nonce, ct, additional)
	if err != nil {
		return nil, ErrDecrypt
	}
	return plain, nil
}
