package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// clear empties the form field sel (chromedp's SetValue takes no empty
// value).
func (b *browser) clear(sel string) {
	b.t.Helper()
	b.do(chromedp.Evaluate[chromedp.Void](`document.querySelector(` + "`" + sel + "`" + `).value = ""`))
}

// The endpoint form takes a rate limit (per second, burst), a bad one
// refused at its field; the endpoint page shows the limit, how many
// deliveries wait on it and when the last is due; a waiting delivery's
// page says "rate limit" with its slot as the next attempt; emptying the
// field removes the limit and the waiting deliveries go. Photographed at
// 1280 and 390 px.
func TestPortalRateLimit(t *testing.T) {
	const n = 6
	b := newBrowser(t)
	c := newAPI(t)
	tenant := "portal-rate-" + uniq()
	c.putTenant(tenant)
	rc, url := newCapped(t, 0)
	eventType := "rate.portal." + uniq()

	b.signIn(c.portalLink(tenant))
	b.open(shared.APIURL + "/portal/endpoints/new")
	b.fill("#url", url)
	b.fill("#event_types", eventType)
	b.fill("#rate_per_second", "1")
	b.fill("#rate_burst", "2")
	b.submit(`form.form button[type=submit]`)
	require.Contains(t, b.text("#rate_burst-error"), "from 1 to per_second (1)", "the error sits at its field")
	b.fill("#rate_per_second", "0")
	b.clear("#rate_burst")
	b.submit(`form.form button[type=submit]`)
	require.Contains(t, b.text("#rate_per_second-error"), "from 1 to 10000")
	b.shoot("endpoint-form-rate-limit")
	b.fill("#rate_per_second", "1")
	b.submit(`form.form button[type=submit]`)
	require.Contains(t, b.text(".notice"), "Endpoint created.")
	require.Equal(t, "1 a second, 1 at once", b.text("#rate-limit"))
	id := strings.TrimPrefix(b.path(), "/portal/endpoints/")

	var ids []string
	for range n {
		a := c.send(`{"type":"` + eventType + `","tenant_id":"` + tenant + `","payload":{"n":1}}`)
		ids = append(ids, a.Deliveries[0].ID)
	}
	rc.delivered(t, 1, 10*time.Second)
	require.Eventually(t, func() bool {
		b.open(shared.APIURL + "/portal/endpoints/" + id)
		return strings.HasPrefix(b.text("#rate-waiting"), "4") || strings.HasPrefix(b.text("#rate-waiting"), "5")
	}, 5*time.Second, 200*time.Millisecond, "the deliveries waiting on the limit")
	require.Contains(t, b.text("#rate-waiting"), ", the last due ")
	b.shoot("endpoint-rate-limit")

	b.open(shared.APIURL + "/portal/deliveries/" + ids[n-1])
	require.Contains(t, b.text("#next-attempt"), "(rate limit)")
	b.shoot("delivery-rate-limit")

	b.open(shared.APIURL + "/portal/endpoints/" + id + "/edit")
	require.Equal(t, "1", b.fieldValue("#rate_per_second"))
	require.Equal(t, "1", b.fieldValue("#rate_burst"))
	b.clear("#rate_per_second")
	b.clear("#rate_burst")
	b.submit(`form.form button[type=submit]`)
	require.Equal(t, "none", b.text("#rate-limit"))
	rc.delivered(t, n, 5*time.Second)
}
