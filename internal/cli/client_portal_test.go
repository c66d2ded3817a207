package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// `portal settings set` changes only the settings its flags name: it
// reads the current ones and puts them back with those changed.
func TestPortalSettingsSetKeepsTheOthers(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/portal/settings", 200, `{"product_name":"Acme","logo":"https://cdn.acme.example/logo.svg","accent_color":"#0a7d5a","theme":"light","support_url":"","updated_at":"2026-12-01T10:00:00Z"}`)
	f.on("PUT /v1/portal/settings", 200, `{"product_name":"Acme","logo":"https://cdn.acme.example/logo.svg","accent_color":"#0a7d5a","theme":"dark","support_url":"https://acme.example/help","updated_at":"2026-12-01T11:00:00Z"}`)
	out, _, err := cli("portal", "settings", "set", "--theme", "dark", "--support-url", "https://acme.example/help")
	require.NoError(t, err)
	require.Contains(t, out, "Portal settings saved.")
	require.Contains(t, out, "https://acme.example/help")
	reqs := f.requests()
	require.Len(t, reqs, 2)
	require.JSONEq(t, `{"product_name":"Acme","logo":"https://cdn.acme.example/logo.svg","accent_color":"#0a7d5a","theme":"dark","support_url":"https://acme.example/help"}`, reqs[1].Body)

	_, _, err = cli("portal", "settings", "set")
	require.ErrorContains(t, err, "name a setting to change")
}

// `portal branding set --logo-file` uploads the image as a data: URL,
// and show prints what the logo is, not its bytes.
func TestTenantBrandingSetLogoFile(t *testing.T) {
	png := filepath.Join(t.TempDir(), "logo.png")
	require.NoError(t, os.WriteFile(png, []byte("\x89PNG\r\n\x1a\nxx"), 0o644))
	f := newFakeAPI(t)
	f.on("GET /v1/tenants/{id}/portal-branding", 200, `{"tenant_id":"acme","product_name":"Reseller","logo":""}`)
	f.on("PUT /v1/tenants/{id}/portal-branding", 200, `{"tenant_id":"acme","product_name":"Reseller","logo":"data:image/png;base64,iVBORw0KGgp4eA=="}`)
	out, _, err := cli("portal", "branding", "set", "acme", "--logo-file", png)
	require.NoError(t, err)
	require.Contains(t, out, "stored image (image/png, 10 bytes)")
	require.JSONEq(t, `{"product_name":"Reseller","logo":"data:image/png;base64,iVBORw0KGgp4eA=="}`, f.requests()[1].Body)

	_, _, err = cli("portal", "branding", "set", "acme", "--logo", "https://x.example/l.png", "--logo-file", png)
	require.ErrorContains(t, err, "exclude each other")
}
