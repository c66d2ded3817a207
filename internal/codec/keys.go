package codec

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// KeySize is the length of a payload master key in bytes.
const KeySize = 32

// KeyID names a master key without revealing it: the first 8 bytes of an
// HMAC-SHA256 under the key, in hex. It is what the metadata carries, so
// the same key always has the same ID and a wrong key is an unknown ID.
func KeyID(master []byte) string {
	m := hmac.New(sha256.New, master)
	m.Write([]byte("hookd payload key id"))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

// deriveDataKey derives the AES-256-GCM data key of namespace ns from
// master with HKDF-SHA256: one master key, a distinct key per namespace.
func deriveDataKey(master []byte, ns string) ([]byte, error) {
	if len(master) != KeySize {
		return nil, fmt.Errorf("payload key is %d bytes, want %d", len(master), KeySize)
	}
	k, err := hkdf.Key(sha256.New, master, nil, "hookd payload data key v1\x00"+ns, KeySize)
	if err != nil {
		return nil, fmt.Errorf("derive data key: %w", err)
	}
	return k, nil
}
