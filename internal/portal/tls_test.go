package portal

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/testkit"
)

// The form sets a client certificate, key and CA; the edit form shows
// the certificates and the key's marker, and saving it unchanged keeps
// the key; the endpoint page shows the certificate's expiry; a key that
// is not the certificate's is shown at the key's textarea.
func TestFormTLS(t *testing.T) {
	f := newFixture(t)
	c := f.signIn()
	ctx := context.Background()
	ca := testkit.NewCA(t, "Receiver CA")
	client := ca.Issue(t, "portal-client", time.Now().Add(-time.Hour), time.Date(2031, 5, 1, 12, 0, 0, 0, time.UTC))
	keyLine := strings.Split(client.KeyPEM, "\n")[1]
	form := url.Values{"csrf": {csrfToken(c.Value)}, "url": {"https://example.com/v2"}, "event_types": {"a.b"},
		"tls_client_certificate": {client.CertPEM}, "tls_client_key": {client.KeyPEM}, "tls_ca": {ca.PEM}}
	require.Equal(t, http.StatusSeeOther, f.post("/portal/endpoints/"+f.ep, c, form, "").Code)
	want := &store.TLS{ClientCertificate: strings.TrimSpace(client.CertPEM), ClientKey: strings.TrimSpace(client.KeyPEM), CA: strings.TrimSpace(ca.PEM)}
	ep, err := f.store.GetEndpoint(ctx, f.ep)
	require.NoError(t, err)
	require.Equal(t, want, ep.Credentials.TLS)

	edit := html.UnescapeString(f.get("/portal/endpoints/"+f.ep+"/edit", c).Body.String())
	assert.Contains(t, edit, strings.TrimSpace(client.CertPEM))
	assert.NotContains(t, edit, keyLine, "the key is never shown")
	i := strings.Index(edit, `name="tls_client_key"`)
	require.Positive(t, i)
	marker := edit[strings.Index(edit[i:], ">")+i+1:]
	marker = marker[:strings.Index(marker, "<")]
	require.Regexp(t, `^\*\*\*\*[0-9a-f]{4}$`, marker)

	page := f.get("/portal/endpoints/"+f.ep, c).Body.String()
	assert.Contains(t, page, "CN=portal-client")
	assert.Contains(t, page, "2031-05-01 12:00:00 UTC")

	// Saved as shown, the marker keeps the key.
	form.Set("tls_client_key", marker)
	require.Equal(t, http.StatusSeeOther, f.post("/portal/endpoints/"+f.ep, c, form, "").Code)
	ep, err = f.store.GetEndpoint(ctx, f.ep)
	require.NoError(t, err)
	require.Equal(t, want, ep.Credentials.TLS)

	form.Set("tls_client_key", ca.IssueNow(t, "other").KeyPEM)
	bad := f.post("/portal/endpoints/"+f.ep, c, form, "")
	require.Equal(t, http.StatusBadRequest, bad.Code)
	assert.Contains(t, bad.Body.String(), `<p class="field-error" id="tls_client_key-error">does not match tls.client_certificate`)

	for _, k := range []string{"tls_client_certificate", "tls_client_key", "tls_ca"} {
		form.Set(k, "")
	}
	require.Equal(t, http.StatusSeeOther, f.post("/portal/endpoints/"+f.ep, c, form, "").Code)
	ep, err = f.store.GetEndpoint(ctx, f.ep)
	require.NoError(t, err)
	require.Nil(t, ep.Credentials, "emptied, TLS is removed")
}
