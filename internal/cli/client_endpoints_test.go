package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hookd/hookd/apiclient"
	"github.com/hookd/hookd/apiclient/wire"
)

// endpoints get says why a disabled endpoint is.
func TestEnabledLineSaysWhy(t *testing.T) {
	assert.Equal(t, "true", enabledLine(&apiclient.Endpoint{Endpoint: wire.Endpoint{Enabled: true}}))
	assert.Equal(t, "false (gone)", enabledLine(&apiclient.Endpoint{Endpoint: wire.Endpoint{DisabledReason: wire.EndpointDisabledReasonGone}}))
	assert.Equal(t, "false", enabledLine(&apiclient.Endpoint{}))
}
