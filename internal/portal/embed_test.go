package portal

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFrameAncestors(t *testing.T) {
	got, err := ParseFrameAncestors(" https://App.example.com, http://localhost:3000 ,https://*.example.net,")
	require.NoError(t, err)
	assert.Equal(t, []string{"https://app.example.com", "http://localhost:3000", "https://*.example.net"}, got)
	none, err := ParseFrameAncestors("")
	require.NoError(t, err)
	assert.Empty(t, none)
	for _, bad := range []string{"app.example.com", "ftp://x.example", "https://x.example/path", "https://x.example?q=1",
		"https://user@x.example", "'self'", "https://x.example; script-src *", "https://a.*.example", "*"} {
		_, err := ParseFrameAncestors(bad)
		assert.Error(t, err, bad)
	}
}

// Framed by the configured origins: the CSP names them, no
// X-Frame-Options, the cookies are partitioned SameSite=None; Secure ones
// even on loopback http, and a form posted from the embedding origin (not
// the portal's own) is still refused.
func TestFramedPortal(t *testing.T) {
	f := newFixture(t)
	f.portal.framing = framing{ancestors: []string{"https://app.example.com"}}
	f.portal.router = f.portal.routes()
	h := f.serve(httptest.NewRequest("GET", "/portal/login", nil)).Header()
	assert.Contains(t, h.Get("Content-Security-Policy"), "frame-ancestors https://app.example.com;")
	assert.Empty(t, h.Get("X-Frame-Options"))

	rec := f.pressSignIn("http://127.0.0.1:8080/portal/login?t=" + f.link())
	require.Equal(t, http.StatusOK, rec.Code)
	cookies := rec.Result().Cookies()
	require.Len(t, cookies, 2)
	for _, c := range cookies {
		assert.Equal(t, http.SameSiteNoneMode, c.SameSite, c.Name)
		assert.True(t, c.Secure, c.Name)
		assert.True(t, c.Partitioned, c.Name)
		assert.True(t, c.HttpOnly, c.Name)
	}
	sess := cookies[1]
	require.Equal(t, http.StatusOK, f.get("/portal/", sess).Code)
	form := url.Values{"csrf": {csrfToken(sess.Value)}, "url": {"https://example.com/x"}}
	assert.Equal(t, http.StatusForbidden, f.post("http://127.0.0.1:8080/portal/endpoints", sess, form, "https://app.example.com").Code,
		"the embedding page's origin is not the portal's")
	assert.Equal(t, http.StatusSeeOther, f.post("http://127.0.0.1:8080/portal/endpoints", sess, form, "http://127.0.0.1:8080").Code)
}
