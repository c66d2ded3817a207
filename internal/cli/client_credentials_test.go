package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEndpointsCreateWithHeadersAndAuth(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/endpoints", 201, endpointJSON+`,"headers":{"X-Api-Key":"****3f9a"},"auth":{"type":"bearer","token":"****oken"},"secret":"whsec_abc"}`)
	out, _, err := cli("endpoints", "create", "--url", "https://example.com/hook", "--header", "X-Api-Key: key-3f9a",
		"--header", "X-Team:payments", "--auth-bearer", "the-token")
	require.NoError(t, err)
	assert.JSONEq(t, `{"url":"https://example.com/hook","headers":{"X-Api-Key":"key-3f9a","X-Team":"payments"},
		"auth":{"type":"bearer","token":"the-token"}}`, f.only(t).Body)
	assert.Regexp(t, `Headers\s+X-Api-Key: \*\*\*\*3f9a`, out)
	assert.Regexp(t, `Auth\s+bearer \*\*\*\*oken`, out)
	assert.NotContains(t, out, "key-3f9a")
}

func TestEndpointsUpdateAuth(t *testing.T) {
	for _, c := range []struct {
		args []string
		body string
	}{
		{[]string{"--auth-basic", "alice:pa:ss"}, `{"auth":{"type":"basic","username":"alice","password":"pa:ss"}}`},
		{[]string{"--no-auth"}, `{"auth":null}`},
		{[]string{"--no-auth", "--enabled=false"}, `{"auth":null,"enabled":false}`},
		{[]string{"--clear-headers"}, `{"headers":{}}`},
	} {
		f := newFakeAPI(t)
		f.on("PATCH /v1/endpoints/{id}", 200, endpointJSON+"}")
		_, _, err := cli(append([]string{"endpoints", "update", "ep_1"}, c.args...)...)
		require.NoError(t, err, "%v", c.args)
		assert.JSONEq(t, c.body, f.only(t).Body, "%v", c.args)
	}
}

func TestEndpointsCredentialFlagsRefused(t *testing.T) {
	for _, args := range [][]string{
		{"--header", "no-colon-secret"},
		{"--auth-basic", "nocolon"},
		{"--auth-bearer", "t", "--no-auth"},
		{"--header", "X: y", "--clear-headers"},
	} {
		newFakeAPI(t)
		_, _, err := cli(append([]string{"endpoints", "update", "ep_1"}, args...)...)
		require.Error(t, err, "%v", args)
		assert.False(t, strings.Contains(err.Error(), "no-colon-secret") || strings.Contains(err.Error(), "nocolon"), "a value is never repeated: %v", err)
	}
}
