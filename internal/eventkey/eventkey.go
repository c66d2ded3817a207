// Package eventkey seals an event's body with the event's own random data
// key, the layer under the payload codec that makes an event erasable:
// the endpoint store keeps the key (wrapped by its master key) in the
// event record, every delivery of the event carries the sealed body
// through Temporal, and the attempt opens it with the key read from the
// store. Destroying the key (an expunge) leaves every copy in Temporal's
// immutable history unreadable.
package eventkey

import (
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"

	"github.com/hookd/hookd/internal/keyring"
)

// KeySize is the length of a data key in bytes (AES-256).
const KeySize = keyring.KeySize

// ErrOpen is returned by Open for a body that does not open with the key
// (another event's, truncated, tampered with). It never carries the body.
var ErrOpen = errors.New("eventkey: cannot open the event's body")

// keyID is the one key's ID on the ring: a data key is never rotated.
const keyID = 0

// New returns a fresh random data key.
func New() ([]byte, error) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("eventkey: new key: %w", err)
	}
	return key, nil
}

// Inside the ciphertext, a first byte says how the body is stored. A
// sealed body is incompressible, so the body is compressed here, before
// sealing, where the payload codec's compression would come too late.
const (
	formatRaw  byte = 1 // the body's bytes
	formatZstd byte = 2 // zstd of the body
)

// minCompress is the smallest body worth trying to compress; maxBody
// bounds a decompressed one (far above any event's), so a forged body
// cannot exhaust memory.
const (
	minCompress = 128
	maxBody     = 16 << 20
)

// The zstd coders keep no state between EncodeAll/DecodeAll calls and are
// safe for concurrent use; their constructors fail only on invalid options.
var (
	zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	zdec, _ = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxBody))
)

// Seal encrypts the body of event eventID with key (AES-256-GCM), bound
// to the event ID so a sealed body copied to another event does not open;
// the body is compressed first when that makes it smaller.
func Seal(key []byte, eventID, body string) ([]byte, error) {
	ring, err := ringOf(key)
	if err != nil {
		return nil, err
	}
	plain := append([]byte{formatRaw}, body...)
	if len(body) >= minCompress {
		if z := zenc.EncodeAll([]byte(body), []byte{formatZstd}); len(z) < len(plain) {
			plain = z
		}
	}
	out, err := ring.Seal(nil, plain, additional(eventID))
	if err != nil {
		return nil, fmt.Errorf("eventkey: seal: %w", err)
	}
	return out, nil
}

// Open is Seal's inverse.
func Open(key []byte, eventID string, sealed []byte) (string, error) {
	ring, err := ringOf(key)
	if err != nil {
		return "", err
	}
	plain, err := ring.Open(keyID, sealed, additional(eventID))
	if err != nil || len(plain) == 0 {
		return "", ErrOpen
	}
	switch plain[0] {
	case formatRaw:
		return string(plain[1:]), nil
	case formatZstd:
		body, err := zdec.DecodeAll(plain[1:], nil)
		if err != nil {
			return "", ErrOpen
		}
		return string(body), nil
	default:
		return "", ErrOpen
	}
}

func ringOf(key []byte) (*keyring.Ring[int], error) {
	ring := keyring.New[int]()
	if err := ring.Add(keyID, key); err != nil {
		return nil, fmt.Errorf("eventkey: %w", err)
	}
	if err := ring.SetCurrent(keyID); err != nil {
		return nil, fmt.Errorf("eventkey: %w", err)
	}
	return ring, nil
}

func additional(eventID string) []byte {
	return []byte("hookd event body\x00" + eventID)
}
