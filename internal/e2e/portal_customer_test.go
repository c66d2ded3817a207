package e2e

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// signIn opens a portal sign-in link in the browser and signs in with
// its page's button.
func (b *browser) signIn(link string) {
	b.t.Helper()
	b.open(link)
	b.submit(`form[action="/portal/login"] button`)
	require.Equal(b.t, "/portal/overview", b.path())
}

// The portal speaks to the customer: an endpoint whose circuit opened
// shows a banner in the customer's words (no API path), its time in the
// viewer's zone, that fits a phone; a test refused meanwhile says why the
// same way; the banner's button recovers the endpoint (the API's recover,
// in the tenant) and the waiting delivery goes out. The dead letters page
// names the endpoint and says "HTTP 400"; the endpoint form has the
// timeout and shows every invalid field at once; the health table's
// columns fit at laptop width. Photographed at 1280 and 390 px.
func TestPortalSpeaksToCustomers(t *testing.T) {
	b := newBrowser(t)
	c := newAPI(t)
	tenant := "portal-cust-" + uniq()
	c.putTenant(tenant)
	var fixed atomic.Bool
	flaky := newReceiver(t, func(_ int, w http.ResponseWriter) {
		if fixed.Load() {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
	})
	refusing := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusBadRequest) })
	// Retries a second apart: on a slow machine the held delivery can take
	// the probe when the cooldown ends, before the recover, and fail; it
	// then waits on the circuit again, not an hour on its schedule, and
	// the recover still wakes it.
	ep := c.createEndpoint(map[string]any{"url": flaky.URL + "/hooks", "tenant_id": tenant, "event_types": []string{"cust.flaky"}, "retry_schedule": []string{"1s", "1s", "1s", "1h"}})
	c.createEndpoint(map[string]any{"url": refusing.URL + "/refuses", "tenant_id": tenant, "event_types": []string{"cust.refused"}})
	send := func(typ string) string {
		return c.send(`{"type":"` + typ + `","tenant_id":"` + tenant + `","payload":{"n":1}}`).Deliveries[0].ID
	}
	for range 5 { // five failures in a row open the circuit
		send("cust.flaky")
	}
	require.Eventually(t, func() bool { return len(flaky.Hits()) >= 5 }, 10*time.Second, 20*time.Millisecond)
	var h health
	require.Eventually(t, func() bool {
		return c.do("GET", "/v1/endpoints/"+ep.ID+"/health", nil, &h) == http.StatusOK && h.Circuit == "open"
	}, 10*time.Second, 20*time.Millisecond)
	held := send("cust.flaky") // waits for the circuit
	dead := send("cust.refused")
	c.waitDeadLetter(dead)

	b.signIn(c.portalLink(tenant))

	// The endpoint page while its circuit is open; a test asked for
	// meanwhile is refused in the same words (a test that got through, once
	// the cooldown ended, fails and opens the circuit again).
	var alert string
	for range 4 {
		b.open(shared.APIURL + "/portal/endpoints/" + ep.ID)
		require.Contains(t, b.text("#circuit-banner"), "Deliveries to this endpoint are paused")
		b.submit(`form[action$="/test"] button`)
		if ok, _ := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!document.querySelector(".alert")`)); ok {
			alert = b.text(".alert")
			break
		}
	}
	require.Contains(t, alert, "cannot be sent while deliveries to this endpoint are paused")
	banner := b.text("#circuit-banner")
	for _, s := range []string{alert, banner} {
		require.NotContains(t, s, "/v1/", "no API paths for a customer")
		require.NotContains(t, s, "POST")
	}
	require.Contains(t, banner, "Resume deliveries")
	if strings.Contains(banner, "try again at") {
		require.Contains(t, b.text("#circuit-banner time"), "GMT+9", "the time in the viewer's zone (Tokyo)")
	}
	b.shoot("endpoint-paused")

	// Recover from the banner's button: the waiting delivery goes out.
	fixed.Store(true)
	b.submit(`#circuit-banner form[action$="/recover"] button`)
	require.Contains(t, b.text(".notice"), "Deliveries resumed")
	require.EqualValues(t, "delivered", c.waitDelivery(held, 15*time.Second).Status)
	b.open(shared.APIURL + "/portal/endpoints/" + ep.ID)
	ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!document.querySelector("#circuit-banner")`))
	require.NoError(t, err)
	require.True(t, ok, "no banner once the circuit is closed")
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/endpoints/"+ep.ID+"/health", nil, &h))
	require.EqualValues(t, "closed", h.Circuit)

	// The health table's columns fit the card at laptop width, figures
	// and all (attempt figures are flushed every few seconds).
	require.Eventually(t, func() bool {
		b.open(shared.APIURL + "/portal/endpoints/" + ep.ID)
		n, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(document.querySelector(".figures tbody tr td:last-child") || {}).textContent || ""`))
		return err == nil && n != "" && n != "0"
	}, 20*time.Second, 500*time.Millisecond, "attempt figures on the endpoint page")
	fits, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`(() => {
		const w = document.querySelector(".table-wrap");
		const th = [...w.querySelectorAll("th")].find(e => e.textContent.trim() === "Attempts");
		return w.scrollWidth <= w.clientWidth && th.getBoundingClientRect().right <= w.getBoundingClientRect().right + 0.5;
	})()`))
	require.NoError(t, err)
	b.shoot("endpoint-health")
	require.True(t, fits, `the health table's "Attempts" header is not cut off at 1280 px`)

	// Dead letters: the endpoint, and the status as a customer reads it.
	b.open(shared.APIURL + "/portal/dead-letters")
	list := b.text("table.list")
	require.Contains(t, list, refusing.URL+"/refuses", "the endpoint")
	require.Contains(t, list, "HTTP 400")
	require.NotContains(t, list, "http_4xx")
	b.shoot("dead-letters-customer")

	// The endpoint form: the timeout, and every invalid field at once.
	b.open(shared.APIURL + "/portal/endpoints/new")
	b.fill("#url", "ftp://example.com/hooks")
	b.fill("#retry_schedule", "soon")
	b.fill("#timeout", "2m")
	b.submit(`form.form button[type=submit]`)
	require.Contains(t, b.text("#url-error"), "must use http or https")
	require.Contains(t, b.text("#retry_schedule-error"), "must be a duration")
	require.NotEmpty(t, b.text("#timeout-error"))
	require.Equal(t, "2m", b.fieldValue("#timeout"), "the typed values stay")
	b.shoot("endpoint-form-errors")
	b.fill("#url", flaky.URL+"/other")
	b.fill("#retry_schedule", " ")
	b.fill("#timeout", "5s")
	b.submit(`form.form button[type=submit]`)
	require.Contains(t, b.text(".notice"), "Endpoint created.")
	require.Contains(t, b.text(".props"), "5s")
}

// fieldValue is the current value of the form field sel.
func (b *browser) fieldValue(sel string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector(`+"`"+sel+"`"+`).value`))
	require.NoError(b.t, err)
	return v
}
