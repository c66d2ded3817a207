package apidocs_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/apidocs"
)

// TestEveryOperationIsOnThePage renders hookd's own document and finds
// each operation (by its anchor, method and path), each shared schema and
// the version on the page.
func TestEveryOperationIsOnThePage(t *testing.T) {
	spec := api.OpenAPIYAML()
	html, err := apidocs.Render(spec, "v9.9.9-test")
	require.NoError(t, err)
	page := string(html)

	var doc struct {
		Paths      map[string]map[string]any `yaml:"paths"`
		Components struct {
			Schemas map[string]any `yaml:"schemas"`
		} `yaml:"components"`
	}
	require.NoError(t, yaml.Unmarshal(spec, &doc))
	ops := 0
	for path, methods := range doc.Paths {
		for method, v := range methods {
			op, _ := v.(map[string]any)
			id, _ := op["operationId"].(string)
			if id == "" {
				continue // a path-level field such as parameters
			}
			ops++
			anchor := regexp.MustCompile(`<section class="op" id="` + regexp.QuoteMeta(id) + `">\s*<h3><span class="method ` + strings.ToUpper(method) + `">` + strings.ToUpper(method) + `</span> <code>` + regexp.QuoteMeta(path) + `</code>`)
			require.Regexp(t, anchor, page, "operation %s %s %s", id, method, path)
		}
	}
	require.Greater(t, ops, 20)
	for name := range doc.Components.Schemas {
		require.Contains(t, page, `id="schema-`+name+`"`)
	}
	require.Contains(t, page, "v9.9.9-test")
	require.Contains(t, page, "<table>", "the introduction's Markdown tables are drawn")
}

// TestThePageLoadsNothingFromElsewhere: no script and no external
// stylesheet, image or font, so the page works offline and under a CSP
// that allows nothing but inline styles.
func TestThePageLoadsNothingFromElsewhere(t *testing.T) {
	html, err := apidocs.Render(api.OpenAPIYAML(), "")
	require.NoError(t, err)
	page := string(html)
	require.NotContains(t, page, "<script")
	require.NotRegexp(t, `(?i)<(link|img|iframe)\b`, page)
	require.NotRegexp(t, `(?i)url\(`, page)
}

func TestRawHTMLInDescriptionsIsEscaped(t *testing.T) {
	spec := []byte(`openapi: 3.0.3
info: {title: t, version: "1", description: "Some *fine* text <script>alert(1)</script>"}
paths:
  /x:
    get:
      operationId: getX
      summary: "<b>x</b>"
      responses: {'200': {description: ok}}
`)
	html, err := apidocs.Render(spec, "")
	require.NoError(t, err)
	require.NotContains(t, string(html), "<script>alert")
	require.NotContains(t, string(html), "<b>x</b>")
	require.Contains(t, string(html), "<em>fine</em>")
}

func TestAnInvalidDocumentIsAnError(t *testing.T) {
	_, err := apidocs.Render([]byte("openapi: 3.0.3\ninfo: {}\npaths: {x: 1}\n"), "")
	require.Error(t, err)
}
