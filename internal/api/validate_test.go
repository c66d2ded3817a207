package api

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Metadata keys are bounded as values are; a refused key is named by its
// start only.
func TestValidateMetadata(t *testing.T) {
	require.NoError(t, validateMetadata(map[string]string{strings.Repeat("k", maxMetadataKey): strings.Repeat("v", maxMetadataValue)}))
	long := strings.Repeat("é", 5000)
	for name, m := range map[string]map[string]string{
		"long key":   {long: "v"},
		"empty key":  {"": "v"},
		"long value": {"k": strings.Repeat("v", maxMetadataValue+1)},
	} {
		err := validateMetadata(m)
		var e *Error
		require.ErrorAs(t, err, &e, name)
		require.Equal(t, CodeInvalid, e.Code, name)
		require.Equal(t, "metadata", e.Field, name)
		require.Less(t, len(e.Message), 200, "%s: the message does not repeat the key", name)
	}
	require.Equal(t, "é", truncate("éé", 3), "cut back to a whole character")
}
