package portal

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The endpoint form takes a content filter: CEL's error shows at the
// field, what was typed stays; "test this filter" tries it on an example
// payload without saving anything.
func TestFormContentFilter(t *testing.T) {
	f := newFixture(t)
	c := f.signIn()
	form := url.Values{"csrf": {csrfToken(c.Value)}, "url": {"https://example.com/x"}, "event_types": {"order.*"},
		"filter": {"payload.amount >"}}
	rec := f.post("/portal/endpoints", c, form, "")
	require.Equal(t, http.StatusBadRequest, rec.Code)
	body := rec.Body.String()
	assert.Contains(t, body, `<pre class="field-error" id="filter-error">ERROR: &lt;input&gt;:1:17: Syntax error`)
	assert.Contains(t, body, `>payload.amount &gt;</textarea>`, "what was typed stays")

	form.Set("filter", `payload.amount > 1000`)
	form.Set("action", "test-filter")
	form.Set("example_payload", `{"amount": 1500}`)
	rec = f.post("/portal/endpoints", c, form, "")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, rec.Body.String(), "Matches: this event would be delivered.")
	form.Set("example_payload", `{"total": 1500}`)
	rec = f.post("/portal/endpoints", c, form, "")
	assert.Contains(t, rec.Body.String(), "Fails (no_such_key): this event would not be delivered.")
	form.Set("example_payload", `[1]`)
	rec = f.post("/portal/endpoints", c, form, "")
	assert.Contains(t, rec.Body.String(), `id="example_payload-error">must be a JSON object`)
	rec = f.get("/portal/", c)
	assert.NotContains(t, rec.Body.String(), "example.com/x", "a test saves nothing")

	form.Del("action")
	rec = f.post("/portal/endpoints", c, form, "")
	require.Equal(t, http.StatusSeeOther, rec.Code)
	loc := rec.Header().Get("Location")
	require.True(t, strings.HasPrefix(loc, "/portal/endpoints/ep_"))
	id := strings.TrimPrefix(strings.SplitN(loc, "?", 2)[0], "/portal/endpoints/")
	rec = f.get("/portal/endpoints/"+id, c)
	assert.Contains(t, rec.Body.String(), `<dt>Content filter</dt><dd><code>payload.amount &gt; 1000</code></dd>`)
	rec = f.get("/portal/endpoints/"+id+"/edit", c)
	assert.Contains(t, rec.Body.String(), `>payload.amount &gt; 1000</textarea>`)
}

// "Send trace context" sets propagate_trace on create and edit, and the
// endpoint page says so; unticked on edit turns it off.
func TestFormPropagateTrace(t *testing.T) {
	f := newFixture(t)
	c := f.signIn()
	form := url.Values{"csrf": {csrfToken(c.Value)}, "url": {"https://example.com/t"}, "propagate_trace": {"true"}}
	rec := f.post("/portal/endpoints", c, form, "")
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	id := strings.TrimPrefix(strings.SplitN(rec.Header().Get("Location"), "?", 2)[0], "/portal/endpoints/")
	rec = f.get("/portal/endpoints/"+id, c)
	assert.Contains(t, rec.Body.String(), `<dt>Trace context</dt>`)
	rec = f.get("/portal/endpoints/"+id+"/edit", c)
	assert.Contains(t, rec.Body.String(), `name="propagate_trace" value="true" checked`)

	form.Del("propagate_trace")
	rec = f.post("/portal/endpoints/"+id, c, form, "")
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	rec = f.get("/portal/endpoints/"+id, c)
	assert.NotContains(t, rec.Body.String(), `<dt>Trace context</dt>`)
}
