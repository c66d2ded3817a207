package main

import (
	"fmt"

	"github.com/hookd/hookd/store/secretbox"
)

// payloadFlags are the payload-encryption settings as given.
type payloadFlags struct {
	encryption  string // "on" or "off"
	keys        string // comma-separated base64 keys, oldest first
	corsOrigins string
}

// payloadOff parses --payload-encryption.
func payloadOff(s string) (bool, error) {
	switch s {
	case "on", "":
		return false, nil
	case "off":
		return true, nil
	}
	return false, fmt.Errorf("payload-encryption: want on or off, not %q", s)
}

// parsePayloadKeys decodes comma-separated base64 payload keys; errors
// name the position, never the key.
func parsePayloadKeys(s string) ([][]byte, error) {
	var keys [][]byte
	for i, item := range splitList(s) {
		k, err := secretbox.ParseKey(item)
		if err != nil {
			return nil, fmt.Errorf("payload key %d: %w", i+1, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}
