package e2e

import (
	"context"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/testkit"
)

// hostPage serves a platform's dashboard page that embeds the portal: GET
// /?src=<portal link> shows it in an iframe. It listens on 127.0.0.1; the
// browser reaches it as http://localhost:<port>, another site than the
// portal's http://127.0.0.1:<port>.
func hostPage(t *testing.T) (origin string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	page := template.Must(template.New("host").Parse(`<!doctype html>
<html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme Cloud</title>
<style>body{margin:0;font:15px system-ui,sans-serif;background:#f3f0ea}
header{background:#1f2a44;color:#fff;padding:14px 20px;font-weight:600}
main{padding:16px}iframe{width:100%;height:760px;border:1px solid #cfc8bb;border-radius:8px;background:#fff}</style></head>
<body><header>Acme Cloud · Settings › Webhooks</header>
<main><iframe id="portal" title="Webhooks" src="{{.}}"></iframe></main></body></html>`))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = page.Execute(w, r.URL.Query().Get("src"))
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return "http://localhost:" + port
}

// startEmbeddableDev starts a hookd dev of its own whose portal the given
// origins may frame.
func startEmbeddableDev(t *testing.T, ancestors ...string) *app.Dev {
	cfg := app.DevConfig{
		DataDir: t.TempDir(), HTTPAddr: "127.0.0.1:0", TemporalAddr: testkit.FreeAddr(t), Version: "test",
		Logger:           slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		TemporalLogLevel: slog.LevelError, WorkflowCacheSize: e2eWorkflowCache, PortalFrameAncestors: ancestors,
	}
	cfg.Observability.FlushEvery = 200 * time.Millisecond // the charts show an attempt at once
	dev, err := app.StartDev(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { dev.Stop(context.Background()) })
	return dev
}

// consoleLog collects what a page writes to its console and log.
type consoleLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *consoleLog) listen(ev any) {
	if e, ok := ev.(*log.EventEntryAdded); ok {
		l.mu.Lock()
		l.lines = append(l.lines, string(e.Entry.Level)+": "+e.Entry.Text)
		l.mu.Unlock()
	}
}

func (l *consoleLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// frame returns a browser driving the cross-site iframe of b's page whose
// URL starts with prefix, once there is one (Chromium runs it as a target
// of its own).
func (b *browser) frame(prefix string) *browser {
	b.t.Helper()
	var fb *browser
	require.Eventually(b.t, func() bool {
		infos, err := chromedp.Targets(b.ctx)
		if err != nil {
			return false
		}
		for _, info := range infos {
			if info.Type == "iframe" && strings.HasPrefix(info.URL, prefix) {
				ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(info.TargetID))
				b.t.Cleanup(cancel)
				fb = &browser{t: b.t, ctx: ctx}
				return true
			}
		}
		return false
	}, 10*time.Second, 50*time.Millisecond, "no iframe at %s", prefix)
	fb.settle()
	return fb
}

// click clicks sel in a frame and waits until the frame shows a new page
// whose document is complete.
func (b *browser) click(sel string) {
	b.t.Helper()
	before, err := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`window.__page = Math.random()`))
	require.NoError(b.t, err)
	b.do(chromedp.Click(chromedp.CSS(sel)))
	require.Eventually(b.t, func() bool {
		now, err := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`document.readyState === "complete" && !document.querySelector('meta[http-equiv=refresh][content^="0;"]') ? (window.__page || 0) : -1`))
		return err == nil && now != before && now != -1
	}, 15*time.Second, 50*time.Millisecond, "click %s", sel)
}

// shootTop saves a full-page screenshot of the top-level page at each
// viewport, then returns to the laptop one.
func (b *browser) shootTop(name string) {
	b.t.Helper()
	for i, v := range viewports {
		b.do(b.viewport(i))
		time.Sleep(300 * time.Millisecond) // the frame lays out again
		png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
		require.NoError(b.t, err)
		require.NoError(b.t, os.WriteFile(filepath.Join(screenshotDir, fmt.Sprintf("%s-%s.png", name, v.name)), png, 0o644))
	}
	b.do(b.viewport(0))
}

// The portal inside a platform's page on another site, in Chromium with
// third-party cookies restricted: the link signs the customer in inside
// the iframe (the partitioned session cookie is kept), and there the
// customer creates an endpoint, sends a test event and resends a failed
// delivery. A page of an origin not in --portal-frame-ancestors cannot
// frame the portal: the frame stays empty and the console names the CSP
// refusal.
func TestPortalEmbeddedInBrowser(t *testing.T) {
	host := hostPage(t)
	dev := startEmbeddableDev(t, host)
	var console consoleLog
	b := newBrowserWith(t, chromedp.Flag("test-third-party-cookie-phaseout", true))
	b.ctx = withListener(t, b.ctx, console.listen)
	c := &apiClient{t: t, dev: dev}
	tenant := "embed-" + uniq()
	c.putTenant(tenant)
	fails := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusBadRequest) })
	failing := c.createEndpoint(map[string]any{"url": fails.URL, "tenant_id": tenant, "event_types": []string{"order.refunded"}})
	dead := c.send(`{"type":"order.refunded","tenant_id":"` + tenant + `","payload":{"order":"ord_1"}}`).Deliveries[0].ID
	c.waitDeadLetter(dead)
	c.waitAttempts(failing.ID, 1)
	ok := newReceiver(t, func(_ int, w http.ResponseWriter) { _, _ = w.Write([]byte(`{"received":true}`)) })

	b.open(host + "/?src=" + c.portalLink(tenant))
	f := b.frame(dev.APIURL + "/portal/login")
	require.Equal(t, "Sign in to your webhooks portal", f.text("h1"))
	f.click(`form[action="/portal/login"] button`)
	require.Equal(t, "/portal/overview", f.path(), "signed in inside the frame:\n%s", console.String())
	require.Equal(t, "Overview", f.text("h1"))
	require.Contains(t, f.text("#attention"), fails.URL, "the failing endpoint needs attention")
	require.Equal(t, "1", f.text("#dead-letters"))
	b.shootTop("embedded")

	f.click(`nav a[href="/portal/"]`)
	require.Contains(t, f.text("table.list"), fails.URL)
	f.click(`a[href="/portal/endpoints/new"]`)
	f.fill("#url", ok.URL+"/orders")
	f.fill("#event_types", "order.*")
	f.click(`form.form button[type=submit]`)
	require.Contains(t, f.text(".notice"), "Endpoint created.")
	f.click(`form[action$="/test"] button`)
	require.Equal(t, "200", f.text("#test-result .status-code"))
	require.Len(t, ok.Hits(), 1)
	// The endpoint's chart counts the test's attempt.
	page, err := chromedp.Run(f.ctx, chromedp.Evaluate[string](`location.href`))
	require.NoError(t, err)
	page = strings.TrimSuffix(page, "/test") // the endpoint's page, which the test's answer was
	require.Eventually(t, func() bool {
		f.do(chromedp.Navigate(page))
		f.settle()
		return strings.Contains(f.text("#charts figcaption"), "1 attempt · 100% succeeded")
	}, 10*time.Second, 300*time.Millisecond, "the chart shows the test event")
	require.Contains(t, f.text("#charts"), "delivered")
	f.do(chromedp.Evaluate[chromedp.Void](`document.getElementById("charts").scrollIntoView()`))
	b.shootTop("embedded-endpoint-chart")

	fixed := c.do("PATCH", "/v1/endpoints/"+failing.ID, map[string]any{"url": ok.URL + "/fixed"}, nil)
	require.Equal(t, http.StatusOK, fixed)
	f.do(chromedp.Navigate(dev.APIURL + "/portal/deliveries/" + dead))
	f.settle()
	f.click(`form[action$="/resend"] button`)
	require.Contains(t, f.text(".notice"), "Resend requested")
	require.Eventually(t, func() bool { return len(ok.Hits()) == 2 }, 20*time.Second, 50*time.Millisecond, "the resent delivery arrived")

	// Another site, not in the list: the browser refuses to show the
	// portal in its frame.
	other := hostPage(t)
	b.open(other + "/?src=" + c.portalLink(tenant))
	require.Eventually(t, func() bool { return strings.Contains(console.String(), "frame-ancestors") }, 10*time.Second, 50*time.Millisecond,
		"the console names the CSP refusal:\n%s", console.String())
	require.Contains(t, console.String(), "violates the following Content Security Policy directive")
	infos, err := chromedp.Targets(b.ctx)
	require.NoError(t, err)
	for _, info := range infos {
		require.False(t, info.Type == "iframe" && strings.Contains(info.Title, "Sign in"), "the portal shows in a frame of %s", other)
	}
}

// withListener returns a child context of ctx whose target (the same tab)
// passes its events to fn.
func withListener(t *testing.T, ctx context.Context, fn func(ev any)) context.Context {
	require.NoError(t, chromedp.Listen(ctx, fn))
	return ctx
}

// waitAttempts waits until the endpoint's health figures (the flushed
// stats) count n attempts in the last day.
func (c *apiClient) waitAttempts(endpointID string, n int) {
	c.t.Helper()
	require.Eventually(c.t, func() bool {
		var h health
		return c.do("GET", "/v1/endpoints/"+endpointID+"/health", nil, &h) == http.StatusOK && h.Stats.LastDay.Attempts >= int64(n)
	}, 15*time.Second, 100*time.Millisecond, "the stats count %d attempts of %s", n, endpointID)
}
