package apiclient

import (
	"context"
	"encoding/base64"
	"net/http"
	"time"
)

// PortalLinkOptions are the options of a portal sign-in link; the zero
// value asks for the API's defaults (a 24h session with every
// capability).
type PortalLinkOptions struct {
	// SessionTTL is how long the session the link opens lasts (1h to
	// 168h); zero means 24h.
	SessionTTL time.Duration
	// ReadOnly opens a session that changes nothing.
	ReadOnly bool
	// Without names capabilities the session goes without, such as
	// "reveal_secret".
	Without []string
}

// PortalLink is a single-use portal sign-in link.
type PortalLink struct {
	Raw
	URL        string    `json:"url"`
	TenantID   string    `json:"tenant_id"`
	ExpiresAt  time.Time `json:"expires_at"`
	SessionTTL string    `json:"session_ttl"`
	// Capabilities says, for every capability, whether the session has
	// it.
	Capabilities map[string]bool `json:"capabilities"`
}

// EndedPortalSessions says how many portal sessions of a tenant were
// ended.
type EndedPortalSessions struct {
	Raw
	TenantID string `json:"tenant_id"`
	Ended    int    `json:"ended"`
}

// CreatePortalLink issues a sign-in link to the tenant's consumer portal.
func (c *Client) CreatePortalLink(ctx context.Context, id string, o PortalLinkOptions) (*PortalLink, error) {
	body := struct {
		SessionTTL   string          `json:"session_ttl,omitempty"`
		ReadOnly     bool            `json:"read_only,omitempty"`
		Capabilities map[string]bool `json:"capabilities,omitempty"`
	}{ReadOnly: o.ReadOnly}
	if o.SessionTTL > 0 {
		body.SessionTTL = o.SessionTTL.String()
	}
	for _, name := range o.Without {
		if body.Capabilities == nil {
			body.Capabilities = map[string]bool{}
		}
		body.Capabilities[name] = false
	}
	return call[PortalLink](ctx, c, http.MethodPost, tenantPath(id)+"/portal", nil, body)
}

// EndPortalSessions ends every portal session of the tenant and voids its
// unused sign-in links.
func (c *Client) EndPortalSessions(ctx context.Context, id string) (*EndedPortalSessions, error) {
	return call[EndedPortalSessions](ctx, c, http.MethodDelete, tenantPath(id)+"/portal-sessions", nil, nil)
}

// PortalSettings is how the consumer portal presents itself on every
// tenant's pages. An empty field takes its default.
type PortalSettings struct {
	Raw
	// ProductName is shown instead of "Webhooks".
	ProductName string `json:"product_name"`
	// Logo is an https URL, or a data: URL of a PNG, JPEG or SVG image of
	// at most 256 KiB that hookd stores (LogoDataURL makes one).
	Logo string `json:"logo"`
	// AccentColor is #rrggbb.
	AccentColor string `json:"accent_color"`
	// Theme is "light", "dark" or "auto" (the viewer's preference).
	Theme string `json:"theme"`
	// SupportURL is an https URL the portal links to as "Help".
	SupportURL string `json:"support_url"`
	// UpdatedAt is set by hookd; nil if never put.
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
}

// TenantPortalBranding is what one tenant's portal shows instead of the
// platform's settings; an empty field keeps the platform's.
type TenantPortalBranding struct {
	Raw
	TenantID    string     `json:"tenant_id,omitempty"`
	ProductName string     `json:"product_name"`
	Logo        string     `json:"logo"`
	UpdatedAt   *time.Time `json:"updated_at,omitempty"`
}

// LogoDataURL is an image's bytes as a data: URL of their media type
// (image/png, image/jpeg or image/svg+xml), for PortalSettings.Logo.
func LogoDataURL(contentType string, image []byte) string {
	return "data:" + contentType + ";base64," + base64.StdEncoding.EncodeToString(image)
}

// GetPortalSettings returns the portal's settings.
func (c *Client) GetPortalSettings(ctx context.Context) (*PortalSettings, error) {
	return call[PortalSettings](ctx, c, http.MethodGet, "/v1/portal/settings", nil, nil)
}

// PutPortalSettings replaces every portal setting and returns them as
// stored.
func (c *Client) PutPortalSettings(ctx context.Context, s PortalSettings) (*PortalSettings, error) {
	s.UpdatedAt = nil
	return call[PortalSettings](ctx, c, http.MethodPut, "/v1/portal/settings", nil, s)
}

// GetTenantPortalBranding returns the tenant's portal branding.
func (c *Client) GetTenantPortalBranding(ctx context.Context, id string) (*TenantPortalBranding, error) {
	return call[TenantPortalBranding](ctx, c, http.MethodGet, tenantPath(id)+"/portal-branding", nil, nil)
}

// PutTenantPortalBranding replaces the tenant's portal branding and
// returns it as stored.
func (c *Client) PutTenantPortalBranding(ctx context.Context, id string, b TenantPortalBranding) (*TenantPortalBranding, error) {
	b.TenantID, b.UpdatedAt = "", nil
	return call[TenantPortalBranding](ctx, c, http.MethodPut, tenantPath(id)+"/portal-branding", nil, b)
}
