package api

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func logoData(typ, body string) string {
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString([]byte(body))
}

// A logo is none, an https URL, or a stored PNG, JPEG or SVG whose bytes
// are what it says; an SVG that could run or load anything is refused.
func TestParseLogo(t *testing.T) {
	for raw, want := range map[string]string{
		"":                                  "none",
		"https://cdn.example.com/l.png?v=2": "url",
		"https://[::1]:8443/l.svg":          "url",
		logoData("image/png", "\x89PNG\r\n\x1a\nrest"): "image/png",
		logoData("image/jpeg", "\xff\xd8\xff\xe0rest"): "image/jpeg",
		logoData("image/svg+xml", `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><defs><linearGradient id="g"/></defs><rect style="fill:url(#g)"/><use href="#g"/></svg>`): "image/svg+xml",
	} {
		l, err := parseLogo("logo", raw)
		require.NoError(t, err, raw)
		assert.Equal(t, want, logoKind(l), raw)
	}
	for _, raw := range []string{
		"https://cdn.example.com/a b.png", "https://cdn.example.com/a;b.png", "https://cdn.exa_mple.com/l.png", "//cdn.example.com/l.png",
		logoData("image/jpeg", "\x89PNG\r\n\x1a\n"),
		logoData("image/svg+xml", `<svg><foreignObject/></svg>`),
		logoData("image/svg+xml", `<svg><a xlink:href="javascript:x()" xmlns:xlink="http://www.w3.org/1999/xlink"/></svg>`),
		logoData("image/svg+xml", `<!DOCTYPE svg [<!ENTITY a "b">]><svg/>`),
		logoData("image/svg+xml", `<svg><g onclick="x()"/></svg>`),
		logoData("image/svg+xml", `<svg`),
		logoData("image/svg+xml", ``),
	} {
		_, err := parseLogo("logo", raw)
		var e *Error
		require.ErrorAs(t, err, &e, raw)
		assert.Equal(t, "logo", e.Field, raw)
	}
}
