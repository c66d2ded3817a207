package sqlstore

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// sealedPrefix marks an event payload stored encrypted. Rows written
// before payloads were sealed hold the JSON itself, which never starts
// with it, and still read.
const sealedPrefix = "hookd-sealed:1:"

// sealPayload encrypts an event's payload with the store's key, bound to
// its event ID so a ciphertext copied to another row does not decrypt.
// The column stays text (base64) on both databases.
func (s *Store) sealPayload(eventID, payload string) (string, error) {
	sealed, err := s.box.Seal([]byte(payload), payloadAD(eventID))
	if err != nil {
		return "", fmt.Errorf("encrypt payload: %w", err)
	}
	return sealedPrefix + base64.RawStdEncoding.EncodeToString(sealed), nil
}

// openPayload is sealPayload's inverse; a payload stored in plaintext is
// returned as it is.
func (s *Store) openPayload(eventID, stored string) (string, error) {
	enc, ok := strings.CutPrefix(stored, sealedPrefix)
	if !ok {
		return stored, nil
	}
	sealed, err := base64.RawStdEncoding.DecodeString(enc)
	if err == nil {
		var plain []byte
		if plain, err = s.box.Open(sealed, payloadAD(eventID)); err == nil {
			return string(plain), nil
		}
	}
	return "", fmt.Errorf("decrypt payload of event %s: %w", eventID, err)
}

func payloadAD(eventID string) []byte {
	return []byte("hookd event payload\x00" + eventID)
}
