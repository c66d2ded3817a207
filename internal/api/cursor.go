package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
)

// cursorSum is the length of the checksum a page cursor carries.
const cursorSum = 8

// encodeCursor turns a Temporal page token into an API cursor: the token
// and a checksum, base64url. An empty token (no further page) is "".
func encodeCursor(token []byte) string {
	if len(token) == 0 {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(append(bytes.Clone(token), cursorChecksum(token)...))
}

// decodeCursor reads a cursor encodeCursor made. Anything else is refused
// at once, naming field, before it can reach Temporal (which retries a
// page token it cannot read for seconds, then fails as unavailable).
func decodeCursor(field, cursor string) ([]byte, error) {
	if cursor == "" {
		return nil, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(raw) <= cursorSum {
		return nil, invalid(field, "is not a cursor this API returned")
	}
	token, sum := raw[:len(raw)-cursorSum], raw[len(raw)-cursorSum:]
	if !bytes.Equal(sum, cursorChecksum(token)) {
		return nil, invalid(field, "is not a cursor this API returned")
	}
	return token, nil
}

func cursorChecksum(token []byte) []byte {
	sum := sha256.Sum256(append([]byte("hookd page cursor\x00"), token...))
	return sum[:cursorSum]
}
