package cli

import (
	"fmt"

	"github.com/hookd/hookd/internal/store/secretbox"
)

// payloadFlags are the payload-encryption settings as given.
type payloadFlags struct {
	keys        string // comma-separated base64 keys, oldest first
	corsOrigins string
}

// parsePayloadKeys decodes comma-separated base64 payload keys; errors
// name the position, never the key.
func parsePayloadKeys(s string) ([][]byte, error) {
	var keys [][]byte
	for i, item := range splitList(s) {
		k, err := secretbox.ParseKey(item)
		if err != nil {
			return nil, usageError{fmt.Errorf("payload key %d: %w", i+1, err)}
		}
		keys = append(keys, k)
	}
	return keys, nil
}
