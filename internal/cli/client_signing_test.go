package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mailFrameAnswer = `,"signing":{"scheme":"hmac-sha256","header":"MailFrame-Signature","prefix":"sha256=","encoding":"hex","content":"body",
	"timestamp_header":"webhook-timestamp","delivery_id_header":"X-MailFrame-Delivery-Id","event_id_header":"X-MailFrame-Event-Id",
	"event_type_header":"hookd-event-type","attempt_header":"X-MailFrame-Attempt"}`

func TestEndpointsCreateWithSigningFlags(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/endpoints", 201, endpointJSON+mailFrameAnswer+`,"secret":"whsec_abc"}`)
	out, _, err := cli("endpoints", "create", "--url", "https://example.com/hook", "--signing-header", "MailFrame-Signature",
		"--signing-prefix", "sha256=", "--signing-delivery-id-header", "X-MailFrame-Delivery-Id",
		"--signing-event-id-header", "X-MailFrame-Event-Id", "--signing-attempt-header", "X-MailFrame-Attempt")
	require.NoError(t, err)
	assert.JSONEq(t, `{"url":"https://example.com/hook","signing":{"scheme":"hmac-sha256","header":"MailFrame-Signature","prefix":"sha256=",
		"delivery_id_header":"X-MailFrame-Delivery-Id","event_id_header":"X-MailFrame-Event-Id","attempt_header":"X-MailFrame-Attempt"}}`, f.only(t).Body)
	assert.Regexp(t, `Signing\s+hmac-sha256 \(MailFrame-Signature: sha256=<hex> of the body; id X-MailFrame-Delivery-Id, event X-MailFrame-Event-Id, attempt X-MailFrame-Attempt\)`, out)
}

func TestEndpointsUpdateSigning(t *testing.T) {
	for _, c := range []struct {
		args []string
		body string
	}{
		{[]string{"--signing", "standard-webhooks"}, `{"signing":{"scheme":"standard-webhooks"}}`},
		{[]string{"--signing", `{"scheme":"hmac-sha256","header":"Postfleet-Signature","content":"timestamp.body"}`},
			`{"signing":{"scheme":"hmac-sha256","header":"Postfleet-Signature","content":"timestamp.body"}}`},
		{[]string{"--signing-scheme", "standard-webhooks"}, `{"signing":{"scheme":"standard-webhooks"}}`},
	} {
		f := newFakeAPI(t)
		f.on("PATCH /v1/endpoints/{id}", 200, endpointJSON+"}")
		_, _, err := cli(append([]string{"endpoints", "update", "ep_1"}, c.args...)...)
		require.NoError(t, err, "%v", c.args)
		assert.JSONEq(t, c.body, f.only(t).Body, "%v", c.args)
	}
	for _, args := range [][]string{
		{"--signing", `{"scheme":"hmac-sha256","separator":";"}`},
		{"--signing", "standard-webhooks", "--signing-header", "X-Sig"},
	} {
		newFakeAPI(t)
		_, _, err := cli(append([]string{"endpoints", "update", "ep_1"}, args...)...)
		require.Error(t, err, "%v", args)
	}
}
