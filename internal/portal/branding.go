package portal

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/store"
)

// brand is how a page presents the portal (api.Branding, as the layout
// needs it).
type brand struct {
	// Name is the product's name, never empty.
	Name string
	// Logo is the logo's src: the platform's https URL, or LogoPath with
	// the stored image's digest; "" for none.
	Logo string
	// Theme is light, dark or auto, for <html data-theme>.
	Theme string
	// Accent is the accent colour's hex digits (no #), "" for the
	// default; the page then links BrandCSSPath?accent=....
	Accent string
	// Support is the help link, "" for none.
	Support string
	// imgOrigin is the logo URL's origin, the one other origin the
	// page's CSP lets it load (an image) from.
	imgOrigin string
}

// Paths of the branding's own resources.
const (
	LogoPath     = Prefix + "/logo"
	BrandCSSPath = Prefix + "/brand.css"
)

// defaultBrand is hookd's own look, for pages rendered when the branding
// cannot be read.
var defaultBrand = brand{Name: api.DefaultProductName, Theme: api.ThemeLight}

// brandOf is the branding of the request's scope: the session's tenant's,
// or the platform's before sign-in. A store error is logged and the page
// is shown in hookd's own look.
func (p *Portal) brandOf(r *http.Request) brand {
	b, err := p.api.PortalBranding(r.Context())
	if err != nil {
		p.log.Warn("portal: branding unreadable; default look", "error", err)
		return defaultBrand
	}
	out := brand{Name: b.ProductName, Theme: b.Theme, Accent: strings.TrimPrefix(b.AccentColor, "#"), Support: b.SupportURL}
	switch {
	case b.Logo.Stored():
		out.Logo = LogoPath + "?v=" + b.Logo.Digest[:min(16, len(b.Logo.Digest))]
	case b.Logo.URL != "":
		if u, err := url.Parse(b.Logo.URL); err == nil {
			out.Logo, out.imgOrigin = b.Logo.URL, u.Scheme+"://"+u.Host
		}
	}
	return out
}

// contentPolicy is the pages' CSP: their own scripts, styles and images
// only, images also from imgOrigin (the logo's) when set, and frames as
// the framing allows.
func (p *Portal) contentPolicy(imgOrigin string) string {
	img := "img-src 'self' data:"
	if imgOrigin != "" {
		img += " " + imgOrigin
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; " + img + "; " +
		"form-action 'self'; " + p.framing.frameAncestors() + "; base-uri 'none'"
}

// logoPolicy is the CSP of a stored logo image: nothing runs or loads,
// should an SVG logo be opened as a page of its own.
const logoPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

// serveLogo serves the stored logo the request's scope shows (the
// session's tenant's or the platform's), with its media type, nosniff and
// logoPolicy; 404 when it shows none stored.
func (p *Portal) serveLogo(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if sess, err := p.lookupSession(r); err == nil {
		ctx = sessionContext(ctx, sess)
	}
	logo, err := p.api.PortalLogo(ctx)
	if errors.Is(err, store.ErrNotFound) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		p.log.Error("portal: read logo", "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", logo.ContentType)
	h.Set("Content-Security-Policy", logoPolicy)
	h.Set("Content-Length", strconv.Itoa(len(logo.Image)))
	h.Set("Cache-Control", "private, max-age=3600") // the page names it by digest
	_, _ = w.Write(logo.Image)
}

// serveBrandCSS serves the accent colour ?accent=rrggbb as the
// stylesheet's variables, with a text colour that reads on it.
func (p *Portal) serveBrandCSS(w http.ResponseWriter, r *http.Request) {
	accent, err := api.ParseAccentColor("#" + r.URL.Query().Get("accent"))
	if err != nil || accent == "#" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	fmt.Fprintf(w, ":root { --accent: %s; --accent-fg: %s; }\n", accent, textOn(accent))
}

// textOn is black or white, whichever reads better on the colour
// #rrggbb (WCAG relative luminance).
func textOn(hex string) string {
	v, _ := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	lin := func(c uint64) float64 {
		s := float64(c) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	l := 0.2126*lin(v>>16&0xff) + 0.7152*lin(v>>8&0xff) + 0.0722*lin(v&0xff)
	// Contrast with white is 1.05/(l+0.05), with black (l+0.05)/0.05.
	if 1.05/(l+0.05) >= (l+0.05)/0.05 {
		return "#fff"
	}
	return "#111"
}
