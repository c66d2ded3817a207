package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// logoSVG is a small SVG logo: a rounded square and a hook.
const logoSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">` +
	`<rect width="64" height="64" rx="14" fill="#0a7d5a"/>` +
	`<path d="M24 14v22a10 10 0 0 0 20 0v-4" fill="none" stroke="#fff" stroke-width="6" stroke-linecap="round"/></svg>`

// pngLogo is a w×h PNG image in one colour.
func pngLogo(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, color.RGBA{R: 10, G: 125, B: 90, A: 255})
		}
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	return buf.Bytes()
}

func dataURL(typ string, b []byte) string {
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(b)
}

// The portal settings and a tenant's branding through the API: bad
// values are 400 naming the field, good ones round-trip (a stored logo as
// the data: URL it was put as), only the platform's key may read or put
// them, and the portal's pages show them: the platform's name and stored
// logo to one tenant, a reseller tenant's own name and logo URL to it
// (its origin the one the CSP lets images load from), the platform's on
// the sign-in page. hookd serves the stored logo with its media type,
// nosniff and a CSP that runs nothing.
func TestPortalBrandingThroughTheAPI(t *testing.T) {
	dev := startEmbeddableDev(t)
	c := &apiClient{t: t, dev: dev}
	var got wire.PortalSettings
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/portal/settings", nil, &got))
	require.Equal(t, wire.PortalSettings{Theme: "light"}, got, "never put: the defaults")

	big := append(pngLogo(t, 1, 1), make([]byte, 256<<10)...) // a byte over the cap
	for body, field := range map[string]string{
		`{"product_name":"` + strings.Repeat("x", 65) + `"}`:                                                        "product_name",
		`{"product_name":"Acme\nHooks"}`:                                                                            "product_name",
		`{"product_name":" Acme"}`:                                                                                  "product_name",
		`{"logo":"http://cdn.example.com/logo.png"}`:                                                                "logo",
		`{"logo":"https://user:pw@cdn.example.com/logo.png"}`:                                                       "logo",
		`{"logo":"https://cdn.example.com/logo.png#x"}`:                                                             "logo",
		`{"logo":"https://cdn.example.com/a'b.png"}`:                                                                "logo",
		`{"logo":"javascript:alert(1)"}`:                                                                            "logo",
		`{"logo":"data:image/gif;base64,R0lGODlhAQABAAAAACw="}`:                                                     "logo",
		`{"logo":"data:image/png;base64,@@@"}`:                                                                      "logo",
		`{"logo":"data:image/png,plain"}`:                                                                           "logo",
		`{"logo":"` + dataURL("image/png", []byte("GIF89a not a png")) + `"}`:                                       "logo",
		`{"logo":"` + dataURL("image/png", big) + `"}`:                                                              "logo",
		`{"logo":"` + dataURL("image/svg+xml", []byte(`<svg><script>x</script></svg>`)) + `"}`:                      "logo",
		`{"logo":"` + dataURL("image/svg+xml", []byte(`<svg onload="x()"/>`)) + `"}`:                                "logo",
		`{"logo":"` + dataURL("image/svg+xml", []byte(`<svg><image href="https://t.example/x.png"/></svg>`)) + `"}`: "logo",
		`{"logo":"` + dataURL("image/svg+xml", []byte(`<html/>`)) + `"}`:                                            "logo",
		`{"accent_color":"green"}`:                                                                                  "accent_color",
		`{"accent_color":"#12345"}`:                                                                                 "accent_color",
		`{"theme":"sepia"}`:                                                                                         "theme",
		`{"support_url":"mailto:help@acme.example"}`:                                                                "support_url",
		`{"support_url":"http://acme.example/help"}`:                                                                "support_url",
		`{"colour":"#123456"}`:                                                                                      "colour",
		`{"updated_at":"2026-01-01T00:00:00Z"}`:                                                                     "updated_at",
	} {
		var e apiError
		require.Equal(t, http.StatusBadRequest, c.do("PUT", "/v1/portal/settings", body, &e), "%.120s", body)
		require.Equal(t, field, e.Error.Field, "%.120s", body)
	}
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/portal/settings", nil, &got))
	require.EqualValues(t, "light", got.Theme, "a refused put changes nothing")

	logo := pngLogo(t, 48, 48)
	put := wire.PortalSettings{ProductName: "Acme Webhooks", Logo: dataURL("image/png", logo), AccentColor: "#0A7D5A",
		Theme: "dark", SupportURL: "https://acme.example/help"}
	require.Equal(t, http.StatusOK, c.do("PUT", "/v1/portal/settings", put, &got))
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/portal/settings", nil, &got))
	require.NotZero(t, got.UpdatedAt)
	got.UpdatedAt = time.Time{}
	put.AccentColor = "#0a7d5a" // stored in lower case
	require.Equal(t, put, got, "the settings round-trip, the stored logo as its data: URL")

	// A tenant's override: the platform's key only, and a tenant that
	// exists.
	reseller, plain := "brand-r-"+uniq(), "brand-p-"+uniq()
	c.putTenant(reseller)
	c.putTenant(plain)
	tok := c.tenantToken(reseller, "1h")
	as := c.asTenant(tok)
	for _, req := range [][2]string{{"GET", "/v1/portal/settings"}, {"PUT", "/v1/portal/settings"},
		{"GET", "/v1/tenants/" + reseller + "/portal-branding"}, {"PUT", "/v1/tenants/" + reseller + "/portal-branding"}} {
		require.Equal(t, http.StatusForbidden, as.do(req[0], req[1], `{"product_name":"Mine"}`, nil), "%s %s", req[0], req[1])
	}
	require.Equal(t, http.StatusNotFound, c.do("PUT", "/v1/tenants/nobody-"+uniq()+"/portal-branding", `{"product_name":"x"}`, nil))
	require.Equal(t, http.StatusNotFound, c.do("GET", "/v1/tenants/nobody-"+uniq()+"/portal-branding", nil, nil))
	for body, field := range map[string]string{
		`{"logo":"ftp://r.example/logo.png"}`:                "logo",
		`{"product_name":"` + strings.Repeat("é", 65) + `"}`: "product_name",
		`{"tenant_id":"someone-else"}`:                       "tenant_id",
		`{"accent_color":"#123456"}`:                         "accent_color", // the platform's alone
	} {
		var e apiError
		require.Equal(t, http.StatusBadRequest, c.do("PUT", "/v1/tenants/"+reseller+"/portal-branding", body, &e), body)
		require.Equal(t, field, e.Error.Field, body)
	}
	var b wire.TenantPortalBranding
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/tenants/"+reseller+"/portal-branding", nil, &b))
	require.Equal(t, wire.TenantPortalBranding{TenantID: reseller}, b, "never put: the platform's")
	require.Equal(t, http.StatusOK, c.do("PUT", "/v1/tenants/"+reseller+"/portal-branding",
		`{"product_name":"Reseller Hooks","logo":"https://cdn.reseller.example:8443/brand/logo.svg?v=2"}`, &b))
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/tenants/"+reseller+"/portal-branding", nil, &b))
	require.Equal(t, "Reseller Hooks", b.ProductName)
	require.Equal(t, "https://cdn.reseller.example:8443/brand/logo.svg?v=2", b.Logo)

	// The portal's pages.
	page := func(hc *http.Client, path string) (*http.Response, string) {
		t.Helper()
		if hc == nil {
			hc = http.DefaultClient
		}
		resp, err := hc.Get(dev.APIURL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(body)
	}
	resp, body := page(portalSession(t, c.portalLink(reseller)), "/portal/overview")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, "<title>Overview · Reseller Hooks</title>")
	require.Contains(t, body, `<img src="https://cdn.reseller.example:8443/brand/logo.svg?v=2" alt="">`)
	require.Contains(t, body, `data-theme="dark"`, "the platform's theme, accent and help link stay")
	require.Contains(t, body, `href="/portal/brand.css?accent=0a7d5a"`)
	require.Contains(t, body, `href="https://acme.example/help"`)
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "img-src 'self' data: https://cdn.reseller.example:8443;")
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")

	plainSession := portalSession(t, c.portalLink(plain))
	resp, body = page(plainSession, "/portal/overview")
	require.Contains(t, body, "<title>Overview · Acme Webhooks</title>")
	require.NotContains(t, body, "reseller.example", "another tenant's override is its own")
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "img-src 'self' data:;", "no other origin")
	src := strings.Split(strings.Split(body, `<img src="`)[1], `"`)[0]
	require.True(t, strings.HasPrefix(src, "/portal/logo?v="), src)
	resp, served := page(plainSession, src)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "image/png", resp.Header.Get("Content-Type"))
	require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "sandbox")
	require.Equal(t, logo, []byte(served))

	_, body = page(nil, strings.TrimPrefix(c.portalLink(plain), dev.APIURL))
	require.Contains(t, body, "<title>Sign in · Acme Webhooks</title>", "the sign-in page: the platform's")
	resp, _ = page(nil, "/portal/brand.css?accent=0a7d5a")
	require.Equal(t, "text/css; charset=utf-8", resp.Header.Get("Content-Type"))
	resp, _ = page(nil, "/portal/brand.css?accent=red;}")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	// An SVG logo is served as SVG, under the same CSP.
	require.Equal(t, http.StatusOK, c.do("PUT", "/v1/tenants/"+reseller+"/portal-branding",
		map[string]any{"logo": dataURL("image/svg+xml", []byte(logoSVG))}, &b))
	resellerSession := portalSession(t, c.portalLink(reseller))
	_, body = page(resellerSession, "/portal/")
	require.Contains(t, body, "· Acme Webhooks</title>", "no name of its own: the platform's")
	src = strings.Split(strings.Split(body, `<img src="`)[1], `"`)[0]
	resp, served = page(resellerSession, src)
	require.Equal(t, "image/svg+xml", resp.Header.Get("Content-Type"))
	require.Equal(t, "default-src 'none'; style-src 'unsafe-inline'; sandbox", resp.Header.Get("Content-Security-Policy"))
	require.Equal(t, logoSVG, served)

	// Deleting the tenant deletes its branding.
	require.Equal(t, http.StatusNoContent, c.do("DELETE", "/v1/tenants/"+reseller, nil, nil))
	c.putTenant(reseller)
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/tenants/"+reseller+"/portal-branding", nil, &b))
	require.Empty(t, b.Logo)
}

// evalIn evaluates a JavaScript expression in b's page.
func evalIn[T any](b *browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	require.NoError(b.t, err, expr)
	return v
}

// prefersDark makes b's page see prefers-color-scheme: dark, or light.
func (b *browser) prefersDark(dark bool) {
	b.t.Helper()
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	b.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return err
	}))
}

// The platform's branding in the portal inside its dashboard's iframe,
// in Chromium: the product name in the header and the page title, the
// stored SVG logo loaded, the accent colour on the current section, the
// dark theme's colours, the help link; "auto" follows the viewer's
// prefers-color-scheme both ways; a reseller tenant's own name and logo
// URL (its https origin the one the CSP allows) replace the platform's.
// Screenshots of the embedded overview and endpoint chart at 1280 and
// 390 px.
func TestPortalBrandingInBrowser(t *testing.T) {
	host := hostPage(t)
	dev := startEmbeddableDev(t, host)
	c := &apiClient{t: t, dev: dev}
	require.Equal(t, http.StatusOK, c.do("PUT", "/v1/portal/settings", map[string]any{"product_name": "Acme Webhooks",
		"logo": dataURL("image/svg+xml", []byte(logoSVG)), "accent_color": "#0a7d5a", "theme": "dark",
		"support_url": "https://acme.example/help"}, nil))
	tenant := "brand-b-" + uniq()
	c.putTenant(tenant)
	fails := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusBadRequest) })
	failing := c.createEndpoint(map[string]any{"url": fails.URL + "/billing", "tenant_id": tenant, "event_types": []string{"invoice.*"}})
	ok := newReceiver(t, func(_ int, w http.ResponseWriter) { _, _ = w.Write([]byte(`{"received":true}`)) })
	orders := c.createEndpoint(map[string]any{"url": ok.URL + "/orders", "tenant_id": tenant, "event_types": []string{"order.*"}})
	for i := range 6 {
		c.send(fmt.Sprintf(`{"type":"order.created","tenant_id":%q,"payload":{"order":"ord_%d"}}`, tenant, i))
	}
	c.waitDeadLetter(c.send(`{"type":"invoice.failed","tenant_id":"` + tenant + `","payload":{"invoice":"in_1"}}`).Deliveries[0].ID)
	c.waitAttempts(orders.ID, 6)
	c.waitAttempts(failing.ID, 1)

	b := newBrowserWith(t, chromedp.Flag("test-third-party-cookie-phaseout", true), chromedp.Flag("ignore-certificate-errors", true))
	b.open(host + "/?src=" + c.portalLink(tenant))
	f := b.frame(dev.APIURL + "/portal/login")
	require.Contains(t, evalIn[string](f, `document.title`), "Acme Webhooks", "the sign-in page is the platform's")
	f.click(`form[action="/portal/login"] button`)
	require.Equal(t, "/portal/overview", f.path())
	require.Equal(t, "Acme Webhooks", f.text(".brand"))
	require.Equal(t, "Overview · Acme Webhooks", evalIn[string](f, `document.title`))
	require.Greater(t, evalIn[float64](f, `document.querySelector(".brand img").naturalWidth`), 0.0, "the stored logo loaded")
	require.Equal(t, "rgb(10, 125, 90)", evalIn[string](f, `getComputedStyle(document.querySelector("nav a[aria-current=page]")).backgroundColor`), "the accent")
	require.Equal(t, "rgb(255, 255, 255)", evalIn[string](f, `getComputedStyle(document.querySelector("nav a[aria-current=page]")).color`), "white reads on it")
	require.Equal(t, "rgb(15, 19, 24)", evalIn[string](f, `getComputedStyle(document.documentElement).backgroundColor`), "the dark theme")
	require.Equal(t, "https://acme.example/help", evalIn[string](f, `document.querySelector("a.help").href`))
	require.Contains(t, f.text("#attention"), fails.URL)
	b.shootTop("branded-embedded")

	f.do(chromedp.Navigate(dev.APIURL + "/portal/endpoints/" + orders.ID))
	f.settle()
	require.Contains(t, f.text("#charts figcaption"), "6 attempts · 100% succeeded")
	f.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("charts").scrollIntoView()`))
	b.shootTop("branded-endpoint-chart")
	for _, pg := range []string{"dead-letters", "endpoints/new"} {
		f.do(chromedp.Navigate(dev.APIURL + "/portal/" + pg))
		f.settle()
		require.Equal(t, "rgb(15, 19, 24)", evalIn[string](f, `getComputedStyle(document.documentElement).backgroundColor`), pg)
		b.shootTop("branded-" + strings.ReplaceAll(pg, "/", "-"))
	}

	// "auto" follows the viewer's preference.
	require.Equal(t, http.StatusOK, c.do("PUT", "/v1/portal/settings", map[string]any{"product_name": "Acme Webhooks",
		"logo": dataURL("image/svg+xml", []byte(logoSVG)), "accent_color": "#0a7d5a", "theme": "auto"}, nil))
	for dark, bg := range map[bool]string{true: "rgb(15, 19, 24)", false: "rgb(246, 247, 249)"} {
		f.prefersDark(dark)
		f.do(chromedp.Navigate(dev.APIURL + "/portal/overview"))
		f.settle()
		require.Equal(t, bg, evalIn[string](f, `getComputedStyle(document.documentElement).backgroundColor`), "prefers dark: %v", dark)
	}
	b.shootTop("branded-auto-light")

	// A reseller's own name and logo URL.
	cdn := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		_, _ = io.WriteString(w, strings.ReplaceAll(logoSVG, "#0a7d5a", "#7c3aed"))
	}))
	t.Cleanup(cdn.Close)
	require.Equal(t, http.StatusOK, c.do("PUT", "/v1/tenants/"+tenant+"/portal-branding",
		map[string]any{"product_name": "Reseller Hooks", "logo": cdn.URL + "/logo.svg"}, nil))
	f.do(chromedp.Navigate(dev.APIURL + "/portal/overview"))
	f.settle()
	require.Equal(t, "Reseller Hooks", f.text(".brand"))
	require.Equal(t, cdn.URL+"/logo.svg", evalIn[string](f, `document.querySelector(".brand img").src`))
	require.Eventually(t, func() bool {
		return evalIn[float64](f, `document.querySelector(".brand img").naturalWidth`) > 0
	}, 5*time.Second, 50*time.Millisecond, "the logo URL's origin is allowed")
	b.shootTop("branded-reseller")
}
