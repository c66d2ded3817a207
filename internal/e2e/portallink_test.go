package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// TestPortalLinkNeedsThePost: a sign-in link lands on a page whose button
// POSTs its token; opening it (a mail scanner, a prefetching browser)
// consumes nothing, a POST without the page's nonce (another site's form)
// is refused, and the link points at the configured public URL whatever
// Host the request that issued it named.
func TestPortalLinkNeedsThePost(t *testing.T) {
	t.Parallel()
	c := newAPI(t)
	tenant := "portal-link-" + uniq()
	c.putTenant(tenant)

	req, err := http.NewRequest("POST", shared.APIURL+"/v1/tenants/"+tenant+"/portal", nil)
	require.NoError(t, err)
	req.Host = "evil.example"
	req.Header.Set("Authorization", "Bearer "+shared.APIKey)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var out wire.PortalLink
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.True(t, strings.HasPrefix(out.URL, shared.APIURL+"/portal/login?t=hpl_"), "not the request's Host: %s", out.URL)
	require.NotContains(t, out.URL, "evil.example")
	link := out.URL

	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	browser := &http.Client{Jar: jar}
	for range 3 {
		signInForm(t, &http.Client{}, link) // prefetchers, each without cookies
	}
	form := signInForm(t, browser, link)

	// Another site's form: the token, without the page's nonce cookie.
	foreign, err := http.PostForm(shared.APIURL+"/portal/login", url.Values{"t": {form.Get("t")}, "nonce": {form.Get("nonce")}})
	require.NoError(t, err)
	foreign.Body.Close()
	require.Equal(t, http.StatusForbidden, foreign.StatusCode)

	resp, err = browser.PostForm(shared.APIURL+"/portal/login", form)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "the link was still unused")
	require.Equal(t, http.StatusOK, portalStatus(t, browser, "/portal/"), "signed in")

	otherJar, err := cookiejar.New(nil)
	require.NoError(t, err)
	other := &http.Client{Jar: otherJar}
	resp, err = other.PostForm(shared.APIURL+"/portal/login", signInForm(t, other, link))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusGone, resp.StatusCode, "the link works once")
}
