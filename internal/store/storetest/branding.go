package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// brandingCases are the suite's cases about the portal's settings and
// the tenants' branding.
var brandingCases = []struct {
	name string
	fn   func(t *testing.T, s store.Store)
}{
	{"PortalSettings", testPortalSettings},
	{"TenantBranding", testTenantBranding},
}

func testPortalSettings(t *testing.T, s store.Store) {
	ctx := context.Background()
	got, err := s.PortalSettings(ctx)
	require.NoError(t, err)
	require.Equal(t, store.PortalSettings{}, got, "never put: hookd's own look")
	_, err = s.PortalLogo(ctx, "")
	require.ErrorIs(t, err, store.ErrNotFound)

	image := []byte("\x89PNG\r\n\x1a\n not really")
	put := store.PortalSettings{ProductName: "Acme Webhooks", Logo: store.Logo{ContentType: "image/png", Image: image},
		AccentColor: "#0a7d5a", Theme: "dark", SupportURL: "https://acme.example/help", UpdatedAt: at(time.Minute)}
	require.NoError(t, s.PutPortalSettings(ctx, put))
	got, err = s.PortalSettings(ctx)
	require.NoError(t, err)
	want := put
	want.Logo = store.Logo{ContentType: "image/png", Digest: digest(image)}
	require.Equal(t, want, got, "the image is left out, its digest set")
	logo, err := s.PortalLogo(ctx, "")
	require.NoError(t, err)
	require.Equal(t, store.Logo{ContentType: "image/png", Image: image, Digest: digest(image)}, logo)

	// A put replaces everything: a logo URL instead of the image.
	put = store.PortalSettings{ProductName: "Acme", Logo: store.Logo{URL: "https://cdn.acme.example/logo.svg"}, Theme: "auto", UpdatedAt: at(2 * time.Minute)}
	require.NoError(t, s.PutPortalSettings(ctx, put))
	got, err = s.PortalSettings(ctx)
	require.NoError(t, err)
	require.Equal(t, put, got)
	_, err = s.PortalLogo(ctx, "")
	require.ErrorIs(t, err, store.ErrNotFound, "a logo URL is no stored image")
}

func testTenantBranding(t *testing.T, s store.Store) {
	ctx := context.Background()
	_, err := s.TenantBranding(ctx, "nobody")
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorIs(t, s.PutTenantBranding(ctx, store.TenantBranding{TenantID: "nobody", ProductName: "x", UpdatedAt: t0}), store.ErrNotFound)

	putTenant(t, s, newTenant("a", 0))
	putTenant(t, s, newTenant("b", 0))
	got, err := s.TenantBranding(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, store.TenantBranding{TenantID: "a"}, got, "never put: the platform's")

	image := []byte("<svg xmlns='http://www.w3.org/2000/svg'/>")
	require.NoError(t, s.PutTenantBranding(ctx, store.TenantBranding{TenantID: "a", ProductName: "Reseller Hooks",
		Logo: store.Logo{ContentType: "image/svg+xml", Image: image}, UpdatedAt: at(time.Minute)}))
	got, err = s.TenantBranding(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, store.TenantBranding{TenantID: "a", ProductName: "Reseller Hooks",
		Logo: store.Logo{ContentType: "image/svg+xml", Digest: digest(image)}, UpdatedAt: at(time.Minute)}, got)
	logo, err := s.PortalLogo(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, image, logo.Image)
	_, err = s.PortalLogo(ctx, "b")
	require.ErrorIs(t, err, store.ErrNotFound, "another tenant's logo is its own")
	_, err = s.PortalLogo(ctx, "")
	require.ErrorIs(t, err, store.ErrNotFound, "a tenant's logo is not the platform's")

	require.NoError(t, s.PutTenantBranding(ctx, store.TenantBranding{TenantID: "a", Logo: store.Logo{URL: "https://r.example/l.png"}, UpdatedAt: at(2 * time.Minute)}))
	got, err = s.TenantBranding(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, store.TenantBranding{TenantID: "a", Logo: store.Logo{URL: "https://r.example/l.png"}, UpdatedAt: at(2 * time.Minute)}, got, "a put replaces both fields")
	_, err = s.PortalLogo(ctx, "a")
	require.ErrorIs(t, err, store.ErrNotFound)

	// Deleting the tenant deletes its branding: the ID's next owner
	// starts with the platform's.
	require.NoError(t, s.DeleteTenant(ctx, "a"))
	putTenant(t, s, newTenant("a", time.Hour))
	got, err = s.TenantBranding(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, store.TenantBranding{TenantID: "a"}, got)
}

// digest is the hex SHA-256 of b.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
