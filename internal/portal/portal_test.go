package portal

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/secretbox"
	"github.com/hookd/hookd/internal/store/sqlite"
	"github.com/hookd/hookd/internal/testkit"
)

// fixture is a portal on a real SQLite store and an unreachable Temporal,
// with one tenant that has one endpoint.
type fixture struct {
	t      testing.TB
	portal *Portal
	store  store.Store
	tenant string
	ep     string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	key, err := secretbox.GenerateKey()
	require.NoError(t, err)
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hookd.db"), key)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := api.New(api.Config{Temporal: testkit.DownTemporal{}, Store: st, APIKeys: []string{"k"}, Namespace: "default", Logger: log,
		Hours: st})
	require.NoError(t, err)
	p, err := New(Config{API: srv, Sessions: st, Version: "test", Logger: log})
	require.NoError(t, err)
	f := &fixture{t: t, portal: p, store: st, tenant: "acme"}
	now := time.Now().UTC()
	_, _, err = st.PutTenant(ctx, &store.Tenant{ID: f.tenant, CreatedAt: now, UpdatedAt: now})
	require.NoError(t, err)
	var in api.EndpointCreate
	u := "https://example.com/hooks"
	in.URL = u
	ep, err := srv.CreateEndpoint(authz.NewContext(ctx, authz.ForTenant(f.tenant, "test")), in)
	require.NoError(t, err)
	f.ep = ep.ID
	return f
}

// link issues a sign-in link as the API does and returns its token.
func (f *fixture) link() string {
	f.t.Helper()
	tok, err := authz.NewPortalLinkToken()
	require.NoError(f.t, err)
	now := time.Now().UTC()
	require.NoError(f.t, f.store.AddPortalLink(context.Background(), store.PortalGrant{Hash: authz.HashToken(tok), TenantID: f.tenant, CreatedAt: now, ExpiresAt: now.Add(10 * time.Minute)}))
	return tok
}

func (f *fixture) serve(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	f.portal.ServeHTTP(rec, req)
	return rec
}

// signIn opens a link, presses Sign in and returns the session cookie.
func (f *fixture) signIn() *http.Cookie {
	f.t.Helper()
	rec := f.pressSignIn("http://example.com/portal/login?t=" + f.link())
	require.Equal(f.t, http.StatusOK, rec.Code)
	cookies := rec.Result().Cookies()
	require.Len(f.t, cookies, 2, "the nonce cleared, the session set")
	require.Equal(f.t, cookieName, cookies[1].Name)
	return cookies[1]
}

// openLink GETs a sign-in link and returns the page's form fields and
// its nonce cookie.
func (f *fixture) openLink(link string) (url.Values, *http.Cookie) {
	f.t.Helper()
	rec := f.serve(httptest.NewRequest("GET", link, nil))
	require.Equal(f.t, http.StatusOK, rec.Code, rec.Body.String())
	form := url.Values{}
	for _, m := range regexp.MustCompile(`name="(t|nonce)" value="([^"]*)"`).FindAllStringSubmatch(rec.Body.String(), -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	cookies := rec.Result().Cookies()
	require.Len(f.t, cookies, 1)
	require.Equal(f.t, loginCookie, cookies[0].Name)
	return form, cookies[0]
}

// pressSignIn opens a link and POSTs its page's form, as its button does.
func (f *fixture) pressSignIn(link string) *httptest.ResponseRecorder {
	f.t.Helper()
	form, nonce := f.openLink(link)
	u, err := url.Parse(link)
	require.NoError(f.t, err)
	return f.post(u.Scheme+"://"+u.Host+"/portal/login", nonce, form, u.Scheme+"://"+u.Host)
}

func (f *fixture) get(path string, c *http.Cookie) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", path, nil)
	req.AddCookie(c)
	return f.serve(req)
}

func (f *fixture) post(path string, c *http.Cookie, form url.Values, origin string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	req.AddCookie(c)
	return f.serve(req)
}

func TestLinkStartsOneSession(t *testing.T) {
	f := newFixture(t)
	link := f.link()
	// Opening the link (a prefetcher, a mail scanner) consumes nothing.
	for range 2 {
		form, _ := f.openLink("/portal/login?t=" + link)
		assert.Equal(t, link, form.Get("t"))
		assert.NotEmpty(t, form.Get("nonce"))
	}
	rec := f.pressSignIn("http://example.com/portal/login?t=" + link)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, rec.Body.String(), `<meta http-equiv="refresh" content="0;url=/portal/overview">`, "the portal opens on its Overview")
	c := rec.Result().Cookies()[1]
	assert.Equal(t, cookieName, c.Name)
	assert.True(t, strings.HasPrefix(c.Value, authz.PortalSessionPrefix))
	assert.True(t, c.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
	assert.Equal(t, "/portal/", c.Path)
	assert.Equal(t, int(SessionLifetime.Seconds()), c.MaxAge)
	assert.False(t, c.Secure, "plain http")

	again := f.pressSignIn("http://example.com/portal/login?t=" + link)
	assert.Equal(t, http.StatusGone, again.Code)
	assert.Contains(t, again.Body.String(), "This sign-in link is no longer valid")
	assert.Len(t, again.Result().Cookies(), 1, "only the nonce cleared")
	for _, bad := range []string{"", "nonsense", authz.TokenPrefix + "x"} {
		assert.Equal(t, http.StatusGone, f.serve(httptest.NewRequest("GET", "/portal/login?t="+url.QueryEscape(bad), nil)).Code, bad)
	}
	assert.Equal(t, http.StatusGone, f.pressSignIn("http://example.com/portal/login?t="+authz.PortalLinkPrefix+"unknown").Code)

	secure := f.pressSignIn("https://hooks.example.com/portal/login?t=" + f.link()).Result().Cookies()[1]
	assert.True(t, secure.Secure, "over https the cookie is Secure")
}

// A sign-in POST without the nonce its page set (a form on another site
// signing the victim into the attacker's portal, or a stale tab) consumes
// nothing and asks to open the link again.
func TestSignInRefusesAForeignPost(t *testing.T) {
	f := newFixture(t)
	link := f.link()
	form, nonce := f.openLink("/portal/login?t=" + link)
	for name, c := range map[string]struct {
		cookie *http.Cookie
		nonce  string
		origin string
	}{
		"no nonce cookie":     {&http.Cookie{Name: "other", Value: "x"}, form.Get("nonce"), ""},
		"another nonce":       {nonce, "not-the-nonce", ""},
		"no nonce in form":    {nonce, "", ""},
		"another site's POST": {nonce, form.Get("nonce"), "https://evil.example"},
	} {
		fm := url.Values{"t": {link}, "nonce": {c.nonce}}
		rec := f.post("http://example.com/portal/login", c.cookie, fm, c.origin)
		assert.Equal(t, http.StatusForbidden, rec.Code, name)
		assert.Contains(t, rec.Body.String(), "Open your sign-in link again", name)
		for _, ck := range rec.Result().Cookies() {
			assert.NotEqual(t, cookieName, ck.Name, name)
		}
	}
	rec := f.post("http://example.com/portal/login", nonce, form, "http://example.com")
	require.Equal(t, http.StatusOK, rec.Code, "the link was not consumed")
}

func TestPagesNeedASession(t *testing.T) {
	f := newFixture(t)
	for _, path := range []string{"/portal/", "/portal/deliveries", "/portal/dead-letters", "/portal/endpoints/" + f.ep} {
		rec := f.serve(httptest.NewRequest("GET", path, nil))
		assert.Equal(t, http.StatusUnauthorized, rec.Code, path)
		assert.Contains(t, rec.Body.String(), "You are signed out", path)
		assert.NotContains(t, rec.Body.String(), f.ep, path)
	}
	forged := &http.Cookie{Name: cookieName, Value: authz.PortalSessionPrefix + "forged"}
	assert.Equal(t, http.StatusUnauthorized, f.get("/portal/", forged).Code)
}

// A state-changing form needs the session's CSRF token, and a browser
// that names another origin is refused even with it.
func TestFormsNeedTheCSRFToken(t *testing.T) {
	f := newFixture(t)
	c := f.signIn()
	page := f.get("/portal/endpoints/"+f.ep, c)
	require.Equal(t, http.StatusOK, page.Code)
	token := csrfToken(c.Value)
	require.Contains(t, page.Body.String(), `name="csrf" value="`+token+`"`)

	disable := url.Values{"enabled": {"false"}}
	assert.Equal(t, http.StatusForbidden, f.post("/portal/endpoints/"+f.ep+"/enabled", c, disable, "").Code, "no token")
	disable.Set("csrf", csrfToken(authz.PortalSessionPrefix+"another"))
	assert.Equal(t, http.StatusForbidden, f.post("/portal/endpoints/"+f.ep+"/enabled", c, disable, "").Code, "another session's token")
	disable.Set("csrf", token)
	assert.Equal(t, http.StatusForbidden, f.post("/portal/endpoints/"+f.ep+"/enabled", c, disable, "https://evil.example").Code, "another origin")
	ep, err := f.store.GetEndpoint(context.Background(), f.ep)
	require.NoError(t, err)
	require.True(t, ep.Enabled, "nothing changed")

	rec := f.post("/portal/endpoints/"+f.ep+"/enabled", c, disable, "http://example.com")
	require.Equal(t, http.StatusSeeOther, rec.Code)
	ep, err = f.store.GetEndpoint(context.Background(), f.ep)
	require.NoError(t, err)
	require.False(t, ep.Enabled)
	require.Equal(t, "manual", ep.DisabledReason)
	assert.Contains(t, f.get("/portal/endpoints/"+f.ep, c).Body.String(), "(disabled by hand)", "the page says why")
	ep.DisabledReason = "gone"
	require.NoError(t, f.store.UpdateEndpoint(context.Background(), ep))
	assert.Contains(t, f.get("/portal/", c).Body.String(), "(its receiver answered 410 Gone)", "the list says why")
}

// With Temporal unreachable, every page still renders: endpoints from the
// store, and a banner where delivery history would be.
func TestTemporalOutageShowsABanner(t *testing.T) {
	f := newFixture(t)
	c := f.signIn()
	const banner = "Delivery history temporarily unavailable."
	for path, want := range map[string]string{
		"/portal/":                     "https://example.com/hooks",
		"/portal/endpoints/" + f.ep:    "https://example.com/hooks",
		"/portal/deliveries":           "Deliveries",
		"/portal/dead-letters":         "Dead letters",
		"/portal/deliveries/dlv_xyz":   "cannot be read right now",
		"/portal/endpoints/new":        "New endpoint",
		"/portal/endpoints/ep_unknown": "Not found",
	} {
		rec := f.get(path, c)
		body := rec.Body.String()
		assert.Contains(t, body, want, path)
		assert.Contains(t, body, `<a href="/portal/dead-letters"`, path)
		if path == "/portal/endpoints/new" || path == "/portal/endpoints/ep_unknown" {
			assert.NotContains(t, body, banner, path)
			continue
		}
		assert.Contains(t, body, banner, path)
	}
}

// The form shows the API's own validation error next to its field.
func TestFormShowsTheAPIsErrorAtItsField(t *testing.T) {
	f := newFixture(t)
	c := f.signIn()
	form := url.Values{"csrf": {csrfToken(c.Value)}, "url": {"https://example.com/x"}, "retry_schedule": {"1s, soon"}}
	rec := f.post("/portal/endpoints", c, form, "")
	require.Equal(t, http.StatusBadRequest, rec.Code)
	body := rec.Body.String()
	assert.Contains(t, body, `<p class="field-error" id="retry_schedule-error">interval 1 (&#34;soon&#34;) must be a duration`)
	assert.Contains(t, body, `value="1s, soon"`, "what was typed stays")

	form.Set("retry_schedule", "")
	rec = f.post("/portal/endpoints", c, form, "")
	require.Equal(t, http.StatusSeeOther, rec.Code)
	assert.True(t, strings.HasPrefix(rec.Header().Get("Location"), "/portal/endpoints/ep_"))
}

func TestSecurityHeaders(t *testing.T) {
	f := newFixture(t)
	h := f.serve(httptest.NewRequest("GET", "/portal/login", nil)).Header()
	assert.Contains(t, h.Get("Content-Security-Policy"), "script-src 'self'")
	assert.Contains(t, h.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	assert.Equal(t, "no-store", h.Get("Cache-Control"))
	assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
	css := f.serve(httptest.NewRequest("GET", "/portal/assets/portal.css", nil))
	assert.Equal(t, http.StatusOK, css.Code)
	assert.Contains(t, css.Header().Get("Content-Type"), "text/css")
}

// Editing, rotating and deleting go through the API's operations: the
// store holds the result.
func TestEditRotateDelete(t *testing.T) {
	f := newFixture(t)
	c := f.signIn()
	ctx := context.Background()
	csrf := csrfToken(c.Value)

	edit := f.get("/portal/endpoints/"+f.ep+"/edit", c)
	require.Equal(t, http.StatusOK, edit.Code)
	assert.Contains(t, edit.Body.String(), `value="https://example.com/hooks"`, "the form holds the endpoint")
	form := url.Values{"csrf": {csrf}, "url": {"https://example.com/v2"}, "description": {"v2"}, "event_types": {"a.b, c.*"}, "retry_schedule": {"5s 1m"}}
	require.Equal(t, http.StatusSeeOther, f.post("/portal/endpoints/"+f.ep, c, form, "").Code)
	ep, err := f.store.GetEndpoint(ctx, f.ep)
	require.NoError(t, err)
	assert.Equal(t, "https://example.com/v2", ep.URL)
	assert.Equal(t, []string{"a.b", "c.*"}, ep.EventTypes)
	assert.Equal(t, []time.Duration{5 * time.Second, time.Minute}, ep.RetrySchedule)

	before, err := f.store.Secrets(ctx, f.ep, time.Now())
	require.NoError(t, err)
	rotated := f.post("/portal/endpoints/"+f.ep+"/rotate", c, url.Values{"csrf": {csrf}, "overlap": {"1h"}}, "")
	require.Equal(t, http.StatusOK, rotated.Code)
	after, err := f.store.Secrets(ctx, f.ep, time.Now())
	require.NoError(t, err)
	require.Len(t, after, 2, "the old secret stays for the overlap")
	assert.Equal(t, before[0].Value, after[1].Value)
	assert.Contains(t, html.UnescapeString(rotated.Body.String()), after[0].Value, "the new secret is shown once")
	bad := f.post("/portal/endpoints/"+f.ep+"/rotate", c, url.Values{"csrf": {csrf}, "overlap": {"forever"}}, "")
	assert.Contains(t, bad.Body.String(), "overlap: must be a duration")

	confirm := f.get("/portal/endpoints/"+f.ep+"/delete", c)
	assert.Contains(t, confirm.Body.String(), "Delete this endpoint?")
	_, err = f.store.GetEndpoint(ctx, f.ep)
	require.NoError(t, err, "asking is not deleting")
	deleted := f.post("/portal/endpoints/"+f.ep+"/delete", c, url.Values{"csrf": {csrf}}, "")
	require.Equal(t, http.StatusSeeOther, deleted.Code)
	assert.Equal(t, "/portal/?done=deleted", deleted.Header().Get("Location"))
	_, err = f.store.GetEndpoint(ctx, f.ep)
	require.ErrorIs(t, err, store.ErrNotFound)
}

// Every page template renders the zero value of its data, so a field a
// template names but its data lacks fails here rather than in a browser;
// a delivery's page also renders a timeline with a redrive in it.
func TestTemplatesRenderTheirData(t *testing.T) {
	p := newFixture(t).portal
	resent := api.DeliveryView{Runs: 2, Timeline: []api.TimelineEntry{
		{Kind: api.TimelineRedrive, Run: 2, Redrive: wire.Redrive{By: "tenant:acme:portal", Reason: "portal"}},
	}}
	until := time.Now()
	held := api.Hold{By: api.HoldCircuitOpen, Until: &until}
	pages := map[string]bool{}
	for _, c := range []struct {
		page string
		data any
	}{
		{"message", message{Title: "t"}}, {"signedin", nil}, {"signin", signin{}}, {"endpoints", endpointList{Endpoints: []endpointHealth{{}}}},
		{"endpointform", endpointForm{}}, {"delete", api.EndpointView{}}, {"endpoint", endpointPage{}},
		{"deliveries", deliveryList{Rows: []deliveryRow{{}}}}, {"delivery", deliveryPage{}}, {"delivery", deliveryPage{DeliveryView: resent}},
		{"deadletters", deadLetterList{Rows: []deadLetterRow{{}}}}, {"redriven", redriven{Results: []redriveResult{{}}}}, {"redrivejob", redriveJobPage{}},
		{"redriven", redriven{Results: []redriveResult{{Hold: held}}, Held: []heldEndpoint{{ID: "ep_1", Hold: held}}}},
		{"redrivejob", redriveJobPage{Held: []heldEndpoint{{ID: "ep_1", URL: "https://x.example", Hold: held}}}},
		{"overview", &overview{}}, {"overview", &overview{Charts: testCharts(), Attention: []attention{{Day: testCharts()[0]}}, Endpoints: 1}},
		{"endpoint", endpointPage{Charts: testCharts()}},
		{"endpoint", endpointPage{Warnings: []api.Warning{{Value: "x"}}, TestTypes: []string{"a.b"}}},
		{"endpointform", endpointForm{Catalog: []catalogPick{{Name: "a.b", Deprecated: true}}, Picked: map[string]bool{"a.b": true}}},
		{"eventtypes", eventTypesPage{}},
		{"eventtypes", eventTypesPage{Next: "?cursor=x", Types: []eventTypeView{{Properties: []schemaRow{{}}, SchemaJSON: "{}", Examples: []string{"{}", "{}"}}}}},
	} {
		pages[c.page] = true
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/portal/", nil)
		p.renderView(rec, req.WithContext(context.WithValue(req.Context(), sessionKey{}, session{tenant: "acme", csrf: "x"})), http.StatusOK, c.page, view{Data: c.data})
		assert.Equal(t, http.StatusOK, rec.Code, c.page)
		assert.Contains(t, rec.Body.String(), "</html>", c.page)
	}
	assert.Len(t, pages, len(p.pages), "every page template is listed above")
}
