package portal

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// The form sets headers and auth; the edit form shows them masked, and
// saving it unchanged keeps them; a bad header is shown at the textarea.
func TestFormHeadersAndAuth(t *testing.T) {
	f := newFixture(t)
	c := f.signIn()
	ctx := context.Background()
	csrf := csrfToken(c.Value)
	form := url.Values{"csrf": {csrf}, "url": {"https://example.com/v2"}, "event_types": {"a.b"},
		"headers": {"X-Api-Key: key-abcd-3f9a\nX-Team: payments\n"}, "auth_type": {"basic"},
		"auth_username": {"alice"}, "auth_password": {"password-7c1e"}}
	require.Equal(t, http.StatusSeeOther, f.post("/portal/endpoints/"+f.ep, c, form, "").Code)
	want := &store.Credentials{Headers: map[string]string{"X-Api-Key": "key-abcd-3f9a", "X-Team": "payments"},
		Auth: &store.Auth{Type: store.AuthBasic, Username: "alice", Password: "password-7c1e"}}
	ep, err := f.store.GetEndpoint(ctx, f.ep)
	require.NoError(t, err)
	require.Equal(t, want, ep.Credentials)

	edit := f.get("/portal/endpoints/"+f.ep+"/edit", c).Body.String()
	assert.Contains(t, edit, "X-Api-Key: ****3f9a\nX-Team: ****ents")
	assert.Contains(t, edit, `value="****7c1e"`)
	assert.NotContains(t, edit, "key-abcd-3f9a")
	assert.NotContains(t, edit, "password-7c1e")

	// Saved as shown: the masked values keep theirs.
	form.Set("headers", "X-Api-Key: ****3f9a\nX-Team: ****ents")
	form.Set("auth_password", "****7c1e")
	require.Equal(t, http.StatusSeeOther, f.post("/portal/endpoints/"+f.ep, c, form, "").Code)
	ep, err = f.store.GetEndpoint(ctx, f.ep)
	require.NoError(t, err)
	require.Equal(t, want, ep.Credentials)

	form.Set("headers", "Host: evil")
	bad := f.post("/portal/endpoints/"+f.ep, c, form, "")
	require.Equal(t, http.StatusBadRequest, bad.Code)
	assert.Contains(t, bad.Body.String(), `<p class="field-error" id="headers-error">Host: header Host is reserved`)

	form.Set("headers", "")
	form.Set("auth_type", "")
	require.Equal(t, http.StatusSeeOther, f.post("/portal/endpoints/"+f.ep, c, form, "").Code)
	ep, err = f.store.GetEndpoint(ctx, f.ep)
	require.NoError(t, err)
	require.Nil(t, ep.Credentials, "emptied, they are removed")
}
