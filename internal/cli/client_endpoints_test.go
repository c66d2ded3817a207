package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hookd/hookd/apiclient"
)

// endpoints get says why a disabled endpoint is.
func TestEnabledLineSaysWhy(t *testing.T) {
	assert.Equal(t, "true", enabledLine(&apiclient.Endpoint{Enabled: true}))
	assert.Equal(t, "false (gone)", enabledLine(&apiclient.Endpoint{DisabledReason: "gone"}))
	assert.Equal(t, "false", enabledLine(&apiclient.Endpoint{}))
}
