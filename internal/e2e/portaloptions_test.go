package e2e

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// portalLinkWith asks the API for a sign-in link with options.
func (c *apiClient) portalLinkWith(tenant string, opts map[string]any) string {
	c.t.Helper()
	var out wire.PortalLink
	require.Equal(c.t, http.StatusCreated, c.do("POST", "/v1/tenants/"+tenant+"/portal", opts, &out))
	return out.URL
}

// A read-only link's session offers no write control and its forged
// forms (with a valid CSRF token) answer 403 and change nothing; a link
// without reveal_secret cannot show the secret; a link's session_ttl
// sets the cookie's lifetime; bad options are 400 naming the field; and
// DELETE /v1/tenants/{id}/portal-sessions signs every session out.
func TestPortalLinkOptions(t *testing.T) {
	c := newAPI(t)
	tenant := "portal-opt-" + uniq()
	c.putTenant(tenant)
	recv := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusBadRequest) })
	ep := c.createEndpoint(map[string]any{"url": recv.URL, "tenant_id": tenant})
	dead := c.send(`{"type":"opt.test","tenant_id":"` + tenant + `","payload":{}}`).Deliveries[0].ID
	c.waitDeadLetter(dead)

	for body, field := range map[string]string{
		`{"session_ttl":"30m"}`:                   "session_ttl",
		`{"session_ttl":"169h"}`:                  "session_ttl",
		`{"session_ttl":"soon"}`:                  "session_ttl",
		`{"capabilities":{"fly":false}}`:          "capabilities.fly",
		`{"read_only":true,"capabilities":[1]}`:   "capabilities",
		`{"capabilities":{"reveal_secret":"no"}}`: "capabilities",
	} {
		var e apiError
		require.Equal(t, http.StatusBadRequest, c.do("POST", "/v1/tenants/"+tenant+"/portal", body, &e), body)
		require.Contains(t, e.Error.Field, field, body)
	}
	var link wire.PortalLink
	require.Equal(t, http.StatusCreated, c.do("POST", "/v1/tenants/"+tenant+"/portal", `{"read_only":true,"session_ttl":"2h"}`, &link))
	require.Equal(t, "2h0m0s", link.SessionTTL)
	require.Equal(t, wire.PortalCapabilities{ManageEndpoints: new(false), RevealSecret: new(true), RotateSecret: new(false),
		SendTest: new(false), Recover: new(false), Redrive: new(false)}, link.Capabilities, "every capability, each stated")

	ro := portalSession(t, c.portalLinkWith(tenant, map[string]any{"read_only": true, "session_ttl": "2h"}))
	status, page := portalPage(t, ro, "GET", "/portal/", nil)
	require.Equal(t, http.StatusOK, status)
	require.NotContains(t, page, "/portal/endpoints/new", "no New endpoint")
	csrf := csrfField.FindStringSubmatch(page)[1]
	status, page = portalPage(t, ro, "GET", "/portal/endpoints/"+ep.ID, nil)
	require.Equal(t, http.StatusOK, status)
	for _, action := range []string{"/edit", "/enabled", "/delete", "/rotate", "/test"} {
		require.NotContains(t, page, "/portal/endpoints/"+ep.ID+action, "no %s control", action)
	}
	require.Contains(t, page, "/portal/endpoints/"+ep.ID+"/secret", "reading the secret stays")
	_, page = portalPage(t, ro, "GET", "/portal/deliveries/"+dead, nil)
	require.NotContains(t, page, "/resend")
	_, page = portalPage(t, ro, "GET", "/portal/dead-letters", nil)
	require.NotContains(t, page, "Redrive selected")

	form := url.Values{"csrf": {csrf}, "url": {"http://127.0.0.1:9/x"}, "enabled": {"false"}, "overlap": {"0s"}, "id": {dead}, "all": {"1"}}
	for _, path := range []string{"/portal/endpoints", "/portal/endpoints/" + ep.ID, "/portal/endpoints/" + ep.ID + "/enabled",
		"/portal/endpoints/" + ep.ID + "/delete", "/portal/endpoints/" + ep.ID + "/rotate", "/portal/endpoints/" + ep.ID + "/test",
		"/portal/endpoints/" + ep.ID + "/recover", "/portal/deliveries/" + dead + "/resend", "/portal/dead-letters/redrive"} {
		status, _ := portalPage(t, ro, "POST", path, form)
		require.Equal(t, http.StatusForbidden, status, "forged POST %s", path)
	}
	for _, path := range []string{"/portal/endpoints/new", "/portal/endpoints/" + ep.ID + "/edit"} {
		status, _ := portalPage(t, ro, "GET", path, nil)
		require.Equal(t, http.StatusForbidden, status, path)
	}
	var got endpoint
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/endpoints/"+ep.ID, nil, &got))
	require.Equal(t, recv.URL, got.URL)
	require.True(t, got.Enabled)
	require.EqualValues(t, "waiting", c.waitDeadLetter(dead).State, "not redriven")
	require.Len(t, recv.Hits(), 1, "no test event sent")
	var eps wire.EndpointPage
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/endpoints?tenant_id="+tenant, nil, &eps))
	require.Len(t, eps.Data, 1, "nothing created")

	noSecret := portalSession(t, c.portalLinkWith(tenant, map[string]any{"capabilities": map[string]bool{"reveal_secret": false}}))
	_, page = portalPage(t, noSecret, "GET", "/portal/endpoints/"+ep.ID, nil)
	require.NotContains(t, page, "/portal/endpoints/"+ep.ID+"/secret")
	require.Contains(t, page, "/portal/endpoints/"+ep.ID+"/rotate", "the other powers stay")
	status, page = portalPage(t, noSecret, "POST", "/portal/endpoints/"+ep.ID+"/secret", url.Values{"csrf": {csrfField.FindStringSubmatch(page)[1]}})
	require.Equal(t, http.StatusForbidden, status)
	require.NotContains(t, page, "whsec_")

	// The platform ends every portal session of the tenant; its tokens
	// stay valid.
	tok := c.tenantToken(tenant, "1h")
	require.Equal(t, http.StatusForbidden, c.asTenant(tok).do("DELETE", "/v1/tenants/"+tenant+"/portal-sessions", nil, nil), "platform only")
	unused := c.portalLink(tenant)
	var ended wire.EndedPortalSessions
	require.Equal(t, http.StatusOK, c.do("DELETE", "/v1/tenants/"+tenant+"/portal-sessions", nil, &ended))
	require.Equal(t, 2, ended.Ended)
	require.Equal(t, http.StatusUnauthorized, portalStatus(t, ro, "/portal/"))
	require.Equal(t, http.StatusUnauthorized, portalStatus(t, noSecret, "/portal/"))
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	hc := &http.Client{Jar: jar}
	resp, err := hc.PostForm(shared.APIURL+"/portal/login", signInForm(t, hc, unused))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusGone, resp.StatusCode, "an unused link is void too")
	require.Equal(t, http.StatusOK, c.asTenant(tok).do("GET", "/v1/endpoints", nil, nil), "tokens stay")
	require.Equal(t, http.StatusNotFound, c.do("DELETE", "/v1/tenants/nobody-"+uniq()+"/portal-sessions", nil, nil))
}
