package e2e

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// portalLink asks the API for a tenant's portal sign-in link.
func (c *apiClient) portalLink(tenant string) string {
	c.t.Helper()
	var out wire.PortalLink
	require.Equal(c.t, http.StatusCreated, c.do("POST", "/v1/tenants/"+tenant+"/portal", nil, &out))
	require.True(c.t, strings.HasPrefix(out.URL, c.dev.APIURL+"/portal/login?t=hpl_"), out.URL)
	require.WithinDuration(c.t, time.Now().Add(10*time.Minute), out.ExpiresAt, time.Minute)
	return out.URL
}

// The consumer portal in a real browser: sign in by link, create an
// endpoint through the form (a validation error shown at its field
// first), send a test event, follow a failing delivery's attempts and
// resend it once the receiver is fixed; another tenant's delivery is "not
// found" and the used link is refused. Each page is photographed at
// laptop and phone width.
func TestPortalInBrowser(t *testing.T) {
	b := newBrowser(t)
	c := newAPI(t)
	tenantA, tenantB := "portal-a-"+uniq(), "portal-b-"+uniq()
	c.putTenant(tenantA)
	c.putTenant(tenantB)
	ok := newReceiver(t, func(_ int, w http.ResponseWriter) { _, _ = w.Write([]byte(`{"received":true}`)) })
	var fixed atomic.Bool
	flaky := newReceiver(t, func(_ int, w http.ResponseWriter) {
		if fixed.Load() {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("receiver says no: database locked"))
	})

	// Another tenant's delivery, for the URL-editing check.
	other := c.createEndpoint(map[string]any{"url": newReceiver(t, nil).URL, "tenant_id": tenantB})
	otherDelivery := c.send(`{"type":"order.created","tenant_id":"` + tenantB + `","payload":{"secret":"of b"}}`).Deliveries[0].ID

	link := c.portalLink(tenantA)
	b.open(link)
	require.Equal(t, "Sign in to your webhooks portal", b.text("h1"), "the link's page signs in only with its button")
	b.shoot("sign-in")
	b.submit(`form[action="/portal/login"] button`)
	require.Equal(t, "/portal/overview", b.path(), "the button signs in and lands on the Overview")
	require.Equal(t, "Overview", b.text("h1"))
	require.Equal(t, "Overview Endpoints Deliveries Dead letters Event types", strings.Join(strings.Fields(b.text("nav")), " "))
	b.shoot("overview")
	b.open(shared.APIURL + "/portal/")
	require.Equal(t, "Endpoints", b.text("h1"))

	// Keyboard only: Tab walks the skip link, the nav and the page's
	// action; Enter follows it.
	var focused []string
	for range 9 {
		b.do(chromedp.KeyEvent("\t"))
		text, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.activeElement.textContent.trim()`))
		require.NoError(t, err)
		if focused = append(focused, text); text == "New endpoint" {
			break
		}
	}
	require.Equal(t, []string{"Skip to content", "Webhooks", "Overview", "Endpoints", "Deliveries", "Dead letters", "Event types", "Sign out", "New endpoint"}, focused)
	_, err := chromedp.Run(b.ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.KeyEvent("\r")))
	require.NoError(t, err)
	require.Equal(t, "New endpoint", b.text("h1"))

	// Create an endpoint through the form: the API's validation first.
	b.fill("#url", "ftp://example.com/hooks")
	b.fill("#event_types", "order.created")
	b.submit(`form.form button[type=submit]`)
	require.Contains(t, b.text("#url-error"), "must use http or https", "the error sits at its field")
	b.shoot("endpoint-form")
	b.fill("#url", ok.URL+"/orders")
	b.fill("#description", "Order notifications")
	b.submit(`form.form button[type=submit]`)
	require.Contains(t, b.text(".notice"), "Endpoint created.")
	require.Equal(t, ok.URL+"/orders", b.text("h1"))

	// Send a test event and see the receiver's 200.
	b.submit(`form[action$="/test"] button`)
	require.Equal(t, "200", b.text("#test-result .status-code"))
	require.Contains(t, b.text("#test-result"), `{"received":true}`)
	require.Len(t, ok.Hits(), 1)
	b.shoot("endpoint")
	b.submit(`form[action$="/secret"] button`)
	require.True(t, strings.HasPrefix(b.text("#secret"), "whsec_"), "Reveal shows the secret")

	// A failing endpoint, created through the form with a short schedule.
	b.open(shared.APIURL + "/portal/endpoints/new")
	b.fill("#url", flaky.URL)
	b.fill("#event_types", "invoice.*")
	b.fill("#retry_schedule", "1s")
	b.submit(`form.form button[type=submit]`)
	require.Contains(t, b.text(".notice"), "Endpoint created.")
	b.open(shared.APIURL + "/portal/")
	require.Contains(t, b.text("table.list"), flaky.URL)
	b.shoot("endpoints")

	// Three deliveries fail for good: one is resent from its page, one
	// selected on the dead-letters page, one redriven with all in a filter.
	dead := map[string]string{}
	for _, typ := range []string{"invoice.paid", "invoice.voided", "invoice.sent"} {
		a := c.send(`{"type":"` + typ + `","tenant_id":"` + tenantA + `","payload":{"invoice":"inv_42","amount":1999}}`)
		require.Len(t, a.Deliveries, 1)
		dead[typ] = a.Deliveries[0].ID
	}
	for _, id := range dead {
		require.EqualValues(t, "exhausted", c.waitDelivery(id, 20*time.Second).Status)
		c.waitDeadLetter(id)
	}
	failed := dead["invoice.paid"]

	b.open(shared.APIURL + "/portal/deliveries")
	require.Contains(t, b.text("table.list"), "invoice.paid")
	require.Contains(t, b.text("table.list"), "exhausted")
	require.Contains(t, b.text("table.list"), "hookd.test")
	b.shoot("deliveries")
	b.do(chromedp.SetValue(chromedp.CSS("#f-status"), "exhausted"))
	b.submit(`form.filter button`)
	require.Contains(t, b.text("table.list"), "invoice.voided")
	require.NotContains(t, b.text("table.list"), "hookd.test", "filtered by status")

	b.open(shared.APIURL + "/portal/deliveries/" + failed)
	require.Equal(t, "exhausted", b.text("#delivery-status"))
	require.Contains(t, b.text("time"), "GMT+9", "times in the viewer's time zone (Tokyo)")
	attempts := b.text(".attempts")
	require.Contains(t, attempts, "Attempt 1")
	require.Contains(t, attempts, "Attempt 2")
	require.Contains(t, attempts, "500")
	require.Contains(t, attempts, "receiver says no: database locked", "the receiver's response body")
	require.Contains(t, b.text(".payload"), `"invoice": "inv_42"`, "the payload, pretty-printed")
	headers := strings.ToLower(b.text(".headers"))
	for name := range flaky.Hits()[0].Header {
		if name != "Accept-Encoding" && name != "Content-Length" {
			require.Contains(t, headers, strings.ToLower(name), "every header the receiver got is listed")
		}
	}
	b.shoot("delivery")

	b.open(shared.APIURL + "/portal/dead-letters")
	require.Contains(t, b.text("table.list"), "invoice.paid")
	require.Contains(t, b.text("table.list"), "HTTP 500", "the last result, as a customer reads it")
	b.shoot("dead-letters")
	fixed.Store(true)
	b.do(chromedp.Click(chromedp.CSS(`input[name=id][value="` + dead["invoice.voided"] + `"]`)))
	b.submit(`form.redrive button:not([name])`)
	require.Contains(t, b.body(), "1 of 1 dead letters redriven")
	b.open(shared.APIURL + "/portal/dead-letters?event_type=invoice.sent")
	require.Contains(t, b.text("table.list"), "invoice.sent")
	require.NotContains(t, b.text("table.list"), "invoice.voided", "the filter")
	b.submit(`form.redrive button[name=all]`)
	require.True(t, strings.HasPrefix(b.path(), "/portal/dead-letters/redrive/redrive_"), b.path())
	require.Eventually(t, func() bool { // the page refreshes itself while the job runs
		return strings.Contains(b.body(), "completed") && strings.Contains(b.body(), "1 of 1 redriven")
	}, 20*time.Second, 250*time.Millisecond)
	b.shoot("redrive-job")
	for _, typ := range []string{"invoice.voided", "invoice.sent"} {
		require.Eventually(t, func() bool { // the redriven run replaces the exhausted one
			var d deliveryState
			return c.do("GET", "/v1/deliveries/"+dead[typ], nil, &d) == http.StatusOK && d.Status == "delivered"
		}, 20*time.Second, 100*time.Millisecond, typ)
	}

	// Resend the first from its page and watch it arrive.
	b.open(shared.APIURL + "/portal/deliveries/" + failed)
	b.submit(`form[action$="/resend"] button`)
	require.Contains(t, b.text(".notice"), "Resend requested")
	require.Eventually(t, func() bool {
		b.open(shared.APIURL + "/portal/deliveries/" + failed)
		return b.text("#delivery-status") == "delivered"
	}, 15*time.Second, 200*time.Millisecond)
	require.Contains(t, b.text("#resent"), "by tenant:"+tenantA+":portal, reason “portal”", "who resent it and why")
	story := b.text(".attempts")
	require.Contains(t, story, "receiver says no", "the first run's attempts stay in the story")
	require.Contains(t, story, "Resent")
	require.Contains(t, story, "200")
	b.shoot("delivery-resent")

	// Another tenant's IDs typed into the URL.
	b.open(shared.APIURL + "/portal/deliveries/" + otherDelivery)
	require.Equal(t, "Not found", b.text("h1"))
	require.NotContains(t, b.body(), "of b")
	b.shoot("not-found")
	b.open(shared.APIURL + "/portal/endpoints/" + other.ID)
	require.Equal(t, "Not found", b.text("h1"))

	// Signing out ends the session.
	b.open(shared.APIURL + "/portal/")
	b.submit(`form.logout button`)
	require.Equal(t, "Signed out", b.text("h1"))
	b.open(shared.APIURL + "/portal/deliveries")
	require.Equal(t, "You are signed out", b.text("h1"))

	// The used link is refused.
	b.open(link)
	b.submit(`form[action="/portal/login"] button`)
	require.Equal(t, "This sign-in link is no longer valid", b.text("h1"))
	b.shoot("link-refused")
}

// portalSession signs a plain HTTP client in with a link: it opens the
// link and POSTs its page's form to the link's server, as the page's
// button does.
func portalSession(t *testing.T, link string) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	hc := &http.Client{Jar: jar}
	u, err := url.Parse(link)
	require.NoError(t, err)
	resp, err := hc.PostForm(u.Scheme+"://"+u.Host+"/portal/login", signInForm(t, hc, link))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return hc
}

// signInForm GETs a sign-in link with hc (keeping its nonce cookie) and
// returns the fields of the page's form.
func signInForm(t *testing.T, hc *http.Client, link string) url.Values {
	t.Helper()
	resp, err := hc.Get(link)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	form := url.Values{}
	for _, m := range regexp.MustCompile(`name="(t|nonce)" value="([^"]*)"`).FindAllStringSubmatch(string(body), -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	require.NotEmpty(t, form.Get("t"), "the page carries the link's token")
	require.NotEmpty(t, form.Get("nonce"))
	return form
}

func portalStatus(t *testing.T, hc *http.Client, path string) int {
	t.Helper()
	resp, err := hc.Get(shared.APIURL + path)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// Logging out, revoking the tenant's tokens and deleting the tenant each
// end its portal sessions; a form without the session's CSRF token
// changes nothing.
func TestPortalSessionsEnd(t *testing.T) {
	c := newAPI(t)
	tenant := "portal-s-" + uniq()
	c.putTenant(tenant)
	require.Equal(t, http.StatusNotFound, c.do("POST", "/v1/tenants/nobody-"+uniq()+"/portal", nil, nil))
	tok := c.tenantToken(tenant, "1h")
	require.Equal(t, http.StatusForbidden, c.asTenant(tok).do("POST", "/v1/tenants/"+tenant+"/portal", nil, nil), "platform only")

	revoked := portalSession(t, c.portalLink(tenant))
	deleted := portalSession(t, c.portalLink(tenant))
	require.Equal(t, http.StatusOK, portalStatus(t, revoked, "/portal/"))

	resp, err := revoked.PostForm(shared.APIURL+"/portal/endpoints", url.Values{"url": {"http://127.0.0.1:1/x"}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "no CSRF token")
	var eps wire.EndpointPage
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/endpoints?tenant_id="+tenant, nil, &eps))
	require.Empty(t, eps.Data)

	require.Equal(t, http.StatusOK, c.do("DELETE", "/v1/tenants/"+tenant+"/tokens", nil, nil))
	require.Equal(t, http.StatusUnauthorized, portalStatus(t, revoked, "/portal/"), "revoking the tokens ends the session")
	require.Equal(t, http.StatusUnauthorized, portalStatus(t, deleted, "/portal/"))

	again := portalSession(t, c.portalLink(tenant))
	require.Equal(t, http.StatusOK, portalStatus(t, again, "/portal/deliveries"))
	require.Equal(t, http.StatusNoContent, c.do("DELETE", "/v1/tenants/"+tenant, nil, nil))
	require.Equal(t, http.StatusUnauthorized, portalStatus(t, again, "/portal/deliveries"), "deleting the tenant ends the session")
}

// portalPage fetches a portal page and returns its status and body.
func portalPage(t *testing.T, hc *http.Client, method, path string, form url.Values) (int, string) {
	t.Helper()
	var (
		resp *http.Response
		err  error
	)
	if method == "GET" {
		resp, err = hc.Get(shared.APIURL + path)
	} else {
		resp, err = hc.PostForm(shared.APIURL+path, form)
	}
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// portalIsolationCases holds, for every portal route that names a
// resource by ID ("METHOD pattern"), the path that names tenant B's; the
// test walks the portal's router, so a route added without a case here
// (or in portalOwnRoutes) fails it.
var portalIsolationCases = map[string]string{
	"GET /portal/endpoints/{id}":             "/portal/endpoints/{b.ep}",
	"GET /portal/endpoints/{id}/edit":        "/portal/endpoints/{b.ep}/edit",
	"GET /portal/endpoints/{id}/delete":      "/portal/endpoints/{b.ep}/delete",
	"POST /portal/endpoints/{id}":            "/portal/endpoints/{b.ep}",
	"POST /portal/endpoints/{id}/enabled":    "/portal/endpoints/{b.ep}/enabled",
	"POST /portal/endpoints/{id}/secret":     "/portal/endpoints/{b.ep}/secret",
	"POST /portal/endpoints/{id}/rotate":     "/portal/endpoints/{b.ep}/rotate",
	"POST /portal/endpoints/{id}/test":       "/portal/endpoints/{b.ep}/test",
	"POST /portal/endpoints/{id}/recover":    "/portal/endpoints/{b.ep}/recover",
	"POST /portal/endpoints/{id}/delete":     "/portal/endpoints/{b.ep}/delete",
	"GET /portal/deliveries/{id}":            "/portal/deliveries/{b.dead}",
	"POST /portal/deliveries/{id}/resend":    "/portal/deliveries/{b.dead}/resend",
	"GET /portal/deliveries":                 "/portal/deliveries?endpoint_id={b.ep}",
	"GET /portal/dead-letters":               "/portal/dead-letters?endpoint_id={b.ep}",
	"GET /portal/dead-letters/redrive/{job}": "/portal/dead-letters/redrive/redrive_0000000000000000000000000_{b}",
}

// portalOwnRoutes are the portal routes that name no resource by its ID
// in the path or query, and why they cannot reach another tenant's.
var portalOwnRoutes = map[string]string{
	"GET /portal/assets/*":              "embedded files",
	"GET /portal/event-types":           "the platform's event-type catalog, the same for every tenant",
	"GET /portal/login":                 "a sign-in link's page: consumes nothing, names no tenant",
	"POST /portal/login":                "a sign-in link names its tenant only through its stored hash",
	"POST /portal/logout":               "ends the session itself",
	"GET /portal/":                      "lists the session's tenant's endpoints",
	"GET /portal/overview":              "the session's tenant's figures and endpoints",
	"GET /portal/endpoints/new":         "an empty form",
	"POST /portal/endpoints":            "creates in the session's tenant; the form has no tenant field",
	"POST /portal/dead-letters/redrive": "its form's IDs and filter: checked below",
	"GET /portal/logo":                  "the logo the session's tenant's pages show, else the platform's",
	"GET /portal/brand.css":             "the accent colour its query names; no stored data",
}

// walkPortal lists every route of the running portal, from its router.
func walkPortal(t *testing.T) []string {
	var routes []string
	require.NoError(t, chi.Walk(shared.Portal.Routes(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		routes = append(routes, method+" "+route)
		return nil
	}))
	require.NotEmpty(t, routes)
	return routes
}

// Every portal page and form, given another tenant's IDs, answers "not
// found" and changes nothing of the other tenant's.
func TestPortalRefusesOtherTenantsIDs(t *testing.T) {
	c := newAPI(t)
	tenantA, tenantB := "portal-ia-"+uniq(), "portal-ib-"+uniq()
	c.putTenant(tenantA)
	c.putTenant(tenantB)
	refuse := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusBadRequest) })
	epB := c.createEndpoint(map[string]any{"url": refuse.URL, "tenant_id": tenantB})
	deadB := c.send(`{"type":"iso.portal","tenant_id":"` + tenantB + `","payload":{}}`).Deliveries[0].ID
	c.waitDeadLetter(deadB)

	hc := portalSession(t, c.portalLink(tenantA))
	status, page := portalPage(t, hc, "GET", "/portal/", nil)
	require.Equal(t, http.StatusOK, status)
	m := csrfField.FindStringSubmatch(page)
	require.NotNil(t, m)
	form := url.Values{"csrf": {m[1]}, "enabled": {"false"}, "overlap": {"0s"}, "url": {"http://127.0.0.1:9/x"}, "id": {deadB}}
	ids := strings.NewReplacer("{b.ep}", epB.ID, "{b.dead}", deadB, "{b}", tenantB)
	routes := walkPortal(t)
	for _, route := range routes {
		pattern, ok := portalIsolationCases[route]
		if !ok {
			_, own := portalOwnRoutes[route]
			require.True(t, own, "portal route %s has no isolation case: add one to portalIsolationCases", route)
			continue
		}
		method, _, _ := strings.Cut(route, " ")
		path := ids.Replace(pattern)
		status, body := portalPage(t, hc, method, path, form)
		require.Equal(t, http.StatusNotFound, status, "%s %s", method, path)
		require.Contains(t, body, "<h1>Not found</h1>", "%s %s", method, path)
		require.NotContains(t, body, refuse.URL, "%s %s", method, path)
	}
	for route := range portalIsolationCases {
		require.Contains(t, routes, route, "portalIsolationCases names a route the portal does not serve")
	}
	for route := range portalOwnRoutes {
		require.Contains(t, routes, route, "portalOwnRoutes names a route the portal does not serve")
	}
	status, body := portalPage(t, hc, "POST", "/portal/dead-letters/redrive", form)
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, "0 of 1 dead letters redriven")
	require.Contains(t, body, "dead letter not found")

	var ep endpoint
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/endpoints/"+epB.ID, nil, &ep))
	require.Equal(t, refuse.URL, ep.URL)
	require.True(t, ep.Enabled)
	require.EqualValues(t, "waiting", c.waitDeadLetter(deadB).State, "B's dead letter was not redriven")
	require.Len(t, refuse.Hits(), 1, "no test event reached B's endpoint")
}
