package api

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/hookd/hookd/internal/store"
)

// cursorMAC is the length of the HMAC a page cursor carries (128 bits).
const cursorMAC = 16

// cursorKeyLabel separates the cursor key derived from a deployment's
// secret from every other use of that secret.
const cursorKeyLabel = "hookd page cursor v1"

// cursors signs the Temporal page tokens the API hands out as cursors,
// so a cursor it did not make is refused before it reaches Temporal
// (which retries a page token it cannot read for seconds, then fails as
// unavailable).
type cursors struct{ key []byte }

// newCursors derives the cursor key from secret (the store's master key,
// the same in every API process, so a cursor one process made is read by
// the next). An empty secret means a random key: cursors then last as
// long as the process.
func newCursors(secret []byte) (cursors, error) {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return cursors{}, fmt.Errorf("random cursor key: %w", err)
		}
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(cursorKeyLabel))
	return cursors{key: mac.Sum(nil)}, nil
}

// encode turns a Temporal page token into an API cursor: the token and
// its HMAC, base64url. An empty token (no further page) is "".
func (c cursors) encode(token []byte) string {
	if len(token) == 0 {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(append(append([]byte(nil), token...), c.sum(token)...))
}

// decode reads a cursor encode made with the same key; anything else is
// errInvalidCursor's 400, at once.
func (c cursors) decode(cursor string) ([]byte, error) {
	if cursor == "" {
		return nil, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(raw) <= cursorMAC {
		return nil, invalidCursor()
	}
	token, sum := raw[:len(raw)-cursorMAC], raw[len(raw)-cursorMAC:]
	if !hmac.Equal(sum, c.sum(token)) {
		return nil, invalidCursor()
	}
	return token, nil
}

func (c cursors) sum(token []byte) []byte {
	mac := hmac.New(sha256.New, c.key)
	mac.Write(token)
	return mac.Sum(nil)[:cursorMAC]
}

// invalidCursor is the one answer to a cursor the API did not return,
// from any list: Temporal's or the store's.
func invalidCursor() *Error {
	return invalid("cursor", "is not a cursor this API returned")
}

// cursorError maps the store's store.ErrInvalidCursor to invalidCursor;
// other errors pass unchanged.
func cursorError(err error) error {
	if errors.Is(err, store.ErrInvalidCursor) {
		return invalidCursor()
	}
	return err
}
