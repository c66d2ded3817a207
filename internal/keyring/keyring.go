// Package keyring holds AES-256-GCM keys by ID, one of them current: new
// values are sealed with the current key, and a value sealed with any key
// on the ring opens (key rotation). It is the one sealing primitive behind
// the endpoint store's secrets at rest (store/secretbox) and the payloads
// hookd puts into Temporal (codec); each of those says how the key ID
// travels with the value.
package keyring

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// KeySize is the length of a key in bytes (AES-256).
const KeySize = 32

// ErrUnknownKey is returned by Open for an ID that is not on the ring.
var ErrUnknownKey = errors.New("keyring: unknown key")

// ErrOpen is returned by Open for a value that is truncated or was
// tampered with, or was sealed with other additional data. It never
// carries the value.
var ErrOpen = errors.New("keyring: authentication failed (truncated, tampered with, or sealed for other data)")

// Ring is a set of keys by ID with one current key. Build it with Add and
// SetCurrent before use; after that it is safe for concurrent use.
type Ring[ID comparable] struct {
	aeads      map[ID]cipher.AEAD
	ids        []ID // in the order added
	current    ID
	hasCurrent bool
}

// New returns an empty ring.
func New[ID comparable]() *Ring[ID] { return &Ring[ID]{aeads: map[ID]cipher.AEAD{}} }

// Add puts key on the ring under id. A key of the wrong size and an ID
// already on the ring are errors (naming the ID, never the key).
func (r *Ring[ID]) Add(id ID, key []byte) error {
	if len(key) != KeySize {
		return fmt.Errorf("key %v is %d bytes, want %d", id, len(key), KeySize)
	}
	if _, dup := r.aeads[id]; dup {
		return fmt.Errorf("key %v is in the keyring twice", id)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return fmt.Errorf("key %v: %w", id, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return fmt.Errorf("key %v: %w", id, err)
	}
	r.aeads[id] = aead
	r.ids = append(r.ids, id)
	return nil
}

// SetCurrent makes the key id the one Seal uses.
func (r *Ring[ID]) SetCurrent(id ID) error {
	if _, ok := r.aeads[id]; !ok {
		return fmt.Errorf("current key %v is not in the keyring", id)
	}
	r.current, r.hasCurrent = id, true
	return nil
}

// Current returns the ID Seal uses, and false when none is set.
func (r *Ring[ID]) Current() (ID, bool) { return r.current, r.hasCurrent }

// IDs returns the IDs on the ring in the order they were added.
func (r *Ring[ID]) IDs() []ID { return append([]ID(nil), r.ids...) }

// Seal encrypts plaintext under the current key with a fresh random nonce
// and appends nonce || ciphertext+tag to dst. additional is authenticated
// but not stored: Open must be given the same.
func (r *Ring[ID]) Seal(dst, plaintext, additional []byte) ([]byte, error) {
	if !r.hasCurrent {
		return nil, errors.New("keyring: no current key")
	}
	aead := r.aeads[r.current]
	n := aead.NonceSize()
	out := append(dst, make([]byte, n)...)
	nonce := out[len(out)-n:]
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("keyring: nonce: %w", err)
	}
	return aead.Seal(out, nonce, plaintext, additional), nil
}

// Open decrypts nonce || ciphertext+tag made by Seal under the key id with
// the same additional data. Its errors are ErrUnknownKey and ErrOpen.
func (r *Ring[ID]) Open(id ID, sealed, additional []byte) ([]byte, error) {
	aead, ok := r.aeads[id]
	if !ok {
		return nil, ErrUnknownKey
	}
	n := aead.NonceSize()
	if len(sealed) < n+aead.Overhead() {
		return nil, ErrOpen
	}
	plain, err := aead.Open(nil, sealed[:n], sealed[n:], additional)
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}
