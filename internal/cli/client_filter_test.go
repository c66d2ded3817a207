package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --filter sends the content filter, --filter "" removes it, and the
// endpoint's filter is printed.
func TestEndpointsFilterFlag(t *testing.T) {
	for _, tc := range []struct {
		filter, body string
	}{
		{`payload.amount > 1000 && "vip" in payload.tags`, `{"filter":"payload.amount > 1000 \u0026\u0026 \"vip\" in payload.tags"}`},
		{"", `{"filter":""}`},
	} {
		f := newFakeAPI(t)
		f.on("PATCH /v1/endpoints/{id}", 200, endpointJSON+`,"filter":"payload.amount > 1000"}`)
		out, _, err := cli("endpoints", "update", "ep_1", "--filter", tc.filter)
		require.NoError(t, err)
		assert.JSONEq(t, tc.body, f.only(t).Body)
		assert.Regexp(t, `Filter\s+payload.amount > 1000`, out)
	}
	f := newFakeAPI(t)
	f.on("POST /v1/endpoints", 201, endpointJSON+`,"secret":"whsec_abc"}`)
	_, _, err := cli("endpoints", "create", "--url", "https://example.com/hook", "--filter", `type == "a"`)
	require.NoError(t, err)
	assert.JSONEq(t, `{"url":"https://example.com/hook","filter":"type == \"a\""}`, f.only(t).Body)
}

// --propagate-trace turns trace context to the receiver on or off, sent
// only when given, and the endpoint's setting is printed.
func TestEndpointsPropagateTraceFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		body string
	}{
		{[]string{"--propagate-trace"}, `{"propagate_trace":true}`},
		{[]string{"--propagate-trace=false"}, `{"propagate_trace":false}`},
	} {
		f := newFakeAPI(t)
		f.on("PATCH /v1/endpoints/{id}", 200, endpointJSON+`,"propagate_trace":true}`)
		out, _, err := cli(append([]string{"endpoints", "update", "ep_1"}, tc.args...)...)
		require.NoError(t, err)
		assert.JSONEq(t, tc.body, f.only(t).Body)
		assert.Regexp(t, `Propagate trace\s+true`, out)
	}
	f := newFakeAPI(t)
	f.on("POST /v1/endpoints", 201, endpointJSON+`,"secret":"whsec_abc"}`)
	_, _, err := cli("endpoints", "create", "--url", "https://example.com/hook")
	require.NoError(t, err)
	assert.JSONEq(t, `{"url":"https://example.com/hook"}`, f.only(t).Body, "not sent unless given")
}
