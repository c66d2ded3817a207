package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// The endpoint form's "Signature format" section: folded on Standard
// Webhooks, its HMAC-SHA256 fields shown only with that scheme; a bad
// field's error sits at it; the saved profile signs what a MailFrame
// receiver verifies from the formula, and the endpoint and delivery pages
// show it.
func TestPortalSignatureFormat(t *testing.T) {
	b := newBrowser(t)
	c := newAPI(t)
	tenant := "portal-sign-" + uniq()
	c.putTenant(tenant)
	var secret secretBox
	rc := newContractReceiver(t, func(h http.Header, body []byte) bool { return mailFrameValid(secret.get(), h, body) })

	b.signIn(c.portalLink(tenant))
	b.open(shared.APIURL + "/portal/endpoints/new")
	evalBool := func(js string) bool {
		v, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](js))
		require.NoError(t, err)
		return v
	}
	require.False(t, evalBool(`document.getElementById("signing").open`), "folded on the standard choice")
	require.Equal(t, "Signature format: Standard Webhooks", b.text("#signing summary"))
	b.do(chromedp.Click(chromedp.CSS("#signing summary")))
	require.True(t, evalBool(`document.getElementById("signing-hmac").hidden`), "HMAC fields hidden with Standard Webhooks")
	b.do(chromedp.SetValue(chromedp.CSS("#signing_scheme"), "hmac-sha256"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("signing_scheme").dispatchEvent(new Event("change"))`))
	require.False(t, evalBool(`document.getElementById("signing-hmac").hidden`), "and shown with HMAC-SHA256")

	b.fill("#url", rc.URL+"/mailframe")
	b.fill("#event_types", "mail.sent")
	b.fill("#signing_header", "MailFrame-Signature")
	b.fill("#signing_prefix", "sha256=")
	b.fill("#signing_delivery_id_header", "X-MailFrame-Delivery-Id")
	b.fill("#signing_event_id_header", "X-MailFrame-Event-Id")
	b.fill("#signing_attempt_header", "X-MailFrame Attempt")
	b.submit(`form.form button[type=submit]`)
	require.Contains(t, b.text("#signing_attempt_header-error"), "HTTP token", "the error sits at its field")
	require.True(t, evalBool(`document.getElementById("signing").open`), "open on an HMAC profile")
	b.shoot("endpoint-form-signature")
	b.fill("#signing_attempt_header", "X-MailFrame-Attempt")
	b.submit(`form.form button[type=submit]`)
	require.Contains(t, b.text(".notice"), "Endpoint created.")
	require.Equal(t, "HMAC-SHA256 in MailFrame-Signature: sha256=<hex> of the raw body", b.text("#signing"))
	b.shoot("endpoint-signature")

	id := strings.TrimPrefix(b.path(), "/portal/endpoints/")
	var ep endpoint
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/endpoints/"+id, nil, &ep))
	require.Equal(t, "X-MailFrame-Attempt", ep.Signing.AttemptHeader)
	b.submit(`form[action$="/secret"] button`)
	secret.set(b.text("#secret"))

	a := c.send(`{"type":"mail.sent","tenant_id":"` + tenant + `","payload":{"to":"a@example.com"}}`)
	require.EqualValues(t, "delivered", c.waitDelivery(a.Deliveries[0].ID, 15*time.Second).Status, "verified from MailFrame's formula")
	b.open(shared.APIURL + "/portal/deliveries/" + a.Deliveries[0].ID)
	headers := b.text(".headers")
	for _, name := range []string{"MailFrame-Signature", "X-MailFrame-Delivery-Id", "X-MailFrame-Event-Id", "X-MailFrame-Attempt"} {
		require.Contains(t, headers, name)
	}
	require.NotContains(t, headers, "webhook-signature")

	// Editing keeps the profile; choosing Standard Webhooks drops it.
	b.open(shared.APIURL + "/portal/endpoints/" + id + "/edit")
	require.Equal(t, "MailFrame-Signature", b.fieldValue("#signing_header"))
	b.do(chromedp.SetValue(chromedp.CSS("#signing_scheme"), "standard-webhooks"))
	b.submit(`form.form button[type=submit]`)
	require.Equal(t, "Standard Webhooks (webhook-signature)", b.text("#signing"))
}
