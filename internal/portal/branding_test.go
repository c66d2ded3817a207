package portal

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The text on an accent is whichever of black and white contrasts more.
func TestTextOnAccent(t *testing.T) {
	for accent, want := range map[string]string{
		"#0a7d5a": "#fff", "#2456d6": "#fff", "#000000": "#fff",
		"#ffff00": "#111", "#ffffff": "#111", "#7fdbff": "#111",
	} {
		assert.Equal(t, want, textOn(accent), accent)
	}
}

// brand.css serves a #rrggbb accent and nothing else.
func TestBrandCSS(t *testing.T) {
	p := newFixture(t).portal
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest("GET", BrandCSSPath+"?accent=0A7D5A", nil))
	require.Equal(t, 200, rec.Code)
	require.Equal(t, ":root { --accent: #0a7d5a; --accent-fg: #fff; }\n", rec.Body.String())
	for _, q := range []string{"", "?accent=", "?accent=red", "?accent=0a7d5a;}body{x:y", "?accent=%230a7d5a"} {
		rec := httptest.NewRecorder()
		p.ServeHTTP(rec, httptest.NewRequest("GET", BrandCSSPath+q, nil))
		require.Equal(t, 404, rec.Code, q)
	}
}

// The pages' CSP names the logo's origin in img-src, and only there.
func TestContentPolicyAllowsTheLogoOrigin(t *testing.T) {
	p := newFixture(t).portal
	assert.Equal(t, "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
		p.contentPolicy(""))
	assert.Equal(t, "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https://cdn.example.com; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
		p.contentPolicy("https://cdn.example.com"))
}
