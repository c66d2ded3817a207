package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// screenshotDir is where the browser tests save a screenshot of each page
// they visit, at laptop and phone width (git ignores it).
const screenshotDir = "testdata/screenshots"

// viewports are the widths each page is photographed at.
var viewports = []struct {
	name          string
	width, height int64
	mobile        bool
}{
	{"laptop", 1280, 800, false},
	{"phone", 390, 844, true},
}

// chromium returns the browser binary, or skips the test when there is
// none outside CI (in CI, .ci/install-chromium.sh provides it).
func chromium(t *testing.T) string {
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium binary in CI: .ci/install-chromium.sh should have installed it")
	}
	t.Skip("no chromium binary: install it (sudo sh .ci/install-chromium.sh) to run the browser tests")
	return ""
}

// browser is one headless Chromium tab driven by a test.
type browser struct {
	t   *testing.T
	ctx context.Context
}

func newBrowser(t *testing.T) *browser { return newBrowserWith(t) }

// newBrowserWith is newBrowser with more options for the browser.
func newBrowserWith(t *testing.T, extra ...chromedp.ExecAllocatorOption) *browser {
	path := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(int(viewports[0].width), int(viewports[0].height)))
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx}
	// The viewer is in Tokyo, hookd in UTC: the pages show Tokyo times.
	b.do(b.viewport(0), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Tokyo"})
		return err
	}))
	require.NoError(t, os.MkdirAll(screenshotDir, 0o755))
	return b
}

func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	require.NoError(b.t, chromedp.Do(b.ctx, actions...))
}

func (b *browser) viewport(i int) chromedp.Action[chromedp.Void] {
	v := viewports[i]
	if v.mobile {
		return chromedp.EmulateViewport(v.width, v.height, chromedp.EmulateMobile)
	}
	return chromedp.EmulateViewport(v.width, v.height)
}

// open navigates to url and waits for the page (and any redirect it makes
// at once) to load.
func (b *browser) open(url string) {
	b.t.Helper()
	b.do(chromedp.Navigate(url))
	b.settle()
}

// submit clicks the element (a submit button or link) and waits for the
// page it leads to.
func (b *browser) submit(sel string) {
	b.t.Helper()
	_, err := chromedp.Run(b.ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(sel))))
	require.NoError(b.t, err, "click %s", sel)
	b.settle()
}

// settle waits until the document is complete and any meta refresh to
// another page has happened.
func (b *browser) settle() {
	b.t.Helper()
	require.Eventually(b.t, func() bool {
		state, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](
			`document.readyState === "complete" && !document.querySelector('meta[http-equiv=refresh][content^="0;"]') ? "ready" : "loading"`))
		return err == nil && state == "ready"
	}, 10*time.Second, 20*time.Millisecond)
}

// fill replaces the value of the input or textarea matched by sel.
func (b *browser) fill(sel, value string) {
	b.t.Helper()
	b.do(chromedp.SetValue(chromedp.CSS(sel), value))
}

// text is the visible text of the first element matched by sel.
func (b *browser) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		page, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		b.t.Fatalf("text of %s: %v; the page:\n%s", sel, err, page)
	}
	return strings.TrimSpace(s)
}

// body is the page's visible text.
func (b *browser) body() string {
	b.t.Helper()
	return b.text("body")
}

// path is the current URL's path.
func (b *browser) path() string {
	b.t.Helper()
	p, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.pathname`))
	require.NoError(b.t, err)
	return p
}

// shoot saves a full-page screenshot of the current page at each
// viewport, then returns to the laptop one. At each width the portal's
// navigation bar must be in view with its three sections, and nothing may
// be wider than the screen.
func (b *browser) shoot(name string) {
	b.t.Helper()
	for i, v := range viewports {
		b.do(b.viewport(i))
		nav, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(() => {
			const links = [...document.querySelectorAll("nav a")];
			const w = document.documentElement.clientWidth;
			return links.filter(a => { const r = a.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= w; })
				.map(a => a.textContent.trim()).join(",");
		})()`))
		require.NoError(b.t, err)
		require.Equal(b.t, "Overview,Endpoints,Deliveries,Dead letters,Event types", nav, "%s at %s width: the navigation bar, in view", name, v.name)
		overflow, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
		require.NoError(b.t, err)
		require.False(b.t, overflow, "%s at %s width: nothing wider than the screen", name, v.name)
		png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
		require.NoError(b.t, err)
		require.NoError(b.t, os.WriteFile(filepath.Join(screenshotDir, fmt.Sprintf("%s-%s.png", name, v.name)), png, 0o644))
	}
	b.do(b.viewport(0))
}
