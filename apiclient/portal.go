package apiclient

import (
	"context"
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
