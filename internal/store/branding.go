package store

import (
	"context"
	"time"
)

// PortalSettings is how the consumer portal presents itself on every
// tenant's pages: the platform's product name, logo, accent colour,
// theme and support link. The zero value is hookd's own look ("Webhooks",
// no logo, the default colours, the light theme).
type PortalSettings struct {
	ProductName string
	Logo        Logo
	// AccentColor is "#rrggbb", or "" for the default.
	AccentColor string
	// Theme is "light", "dark" or "auto" (the viewer's preference); ""
	// is light.
	Theme string
	// SupportURL is where the portal's help link points; "" shows none.
	SupportURL string
	// UpdatedAt is when the settings were last put; zero if never.
	UpdatedAt time.Time
}

// TenantBranding is what one tenant's portal shows instead of the
// platform's settings (a reseller's own name and logo); an empty field
// keeps the platform's.
type TenantBranding struct {
	TenantID    string
	ProductName string
	Logo        Logo
	// UpdatedAt is when the branding was last put; zero if never.
	UpdatedAt time.Time
}

// Logo is a portal logo: an image at the platform's URL, or one stored in
// hookd, which serves it. The zero value is no logo.
type Logo struct {
	// URL is the image's https URL, when it is not stored in hookd.
	URL string
	// ContentType is the stored image's media type ("image/png").
	ContentType string
	// Image is the stored image. Only PortalLogo returns it; the other
	// reads leave it out and set Digest.
	Image []byte
	// Digest is the hex SHA-256 of Image, set by the store ("" with no
	// stored image): pages name the image by it, so a new one is never
	// taken from a cache.
	Digest string
}

// Stored reports whether the logo is an image stored in hookd.
func (l Logo) Stored() bool { return l.ContentType != "" }

// Branding keeps the portal's settings and the tenants' overrides.
type Branding interface {
	// PortalSettings returns the platform's portal settings, the zero
	// value if they were never put. A stored logo comes without its
	// Image.
	PortalSettings(ctx context.Context) (PortalSettings, error)
	// PutPortalSettings replaces the platform's portal settings.
	PutPortalSettings(ctx context.Context, s PortalSettings) error
	// TenantBranding returns the tenant's branding, zero (but TenantID)
	// if it was never put, or ErrNotFound when the tenant does not
	// exist. A stored logo comes without its Image.
	TenantBranding(ctx context.Context, tenantID string) (TenantBranding, error)
	// PutTenantBranding replaces the tenant's branding, or returns
	// ErrNotFound when the tenant does not exist. Deleting the tenant
	// deletes it.
	PutTenantBranding(ctx context.Context, b TenantBranding) error
	// PortalLogo returns the stored logo image of the tenant ("" for the
	// platform's settings), Image included, or ErrNotFound when it has
	// none.
	PortalLogo(ctx context.Context, tenantID string) (Logo, error)
}
