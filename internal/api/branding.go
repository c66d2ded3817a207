package api

import (
	"cmp"
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/store"
)

// DefaultProductName is what the portal calls itself when the platform
// names no product.
const DefaultProductName = "Webhooks"

// brandingBodyLimit bounds a branding request: a logo of MaxLogoBytes in
// base64, and the rest.
const brandingBodyLimit = MaxLogoBytes*4/3 + 16<<10

// Themes the portal may be shown in.
const (
	ThemeLight = "light"
	ThemeDark  = "dark"
	ThemeAuto  = "auto" // the viewer's prefers-color-scheme
)

// settings checks a PUT body and returns the settings it stores.
func settingsIn(in wire.PortalSettings, now time.Time) (store.PortalSettings, error) {
	out := store.PortalSettings{ProductName: in.ProductName, AccentColor: in.AccentColor, Theme: string(in.Theme), SupportURL: in.SupportURL, UpdatedAt: now}
	var err error
	if err = checkProductName(in.ProductName); err != nil {
		return out, err
	}
	if out.Logo, err = parseLogo("logo", in.Logo); err != nil {
		return out, err
	}
	if out.AccentColor, err = ParseAccentColor(in.AccentColor); err != nil {
		return out, err
	}
	switch in.Theme {
	case "":
		out.Theme = ThemeLight
	case ThemeLight, ThemeDark, ThemeAuto:
	default:
		return out, invalid("theme", `must be "light", "dark" or "auto" (the viewer's preference)`)
	}
	if in.SupportURL != "" {
		if _, err := parseHTTPSURL("support_url", in.SupportURL); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (s *Server) getPortalSettings(w http.ResponseWriter, r *http.Request) {
	ps, err := s.store.PortalSettings(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	logo, err := s.logoOut(r.Context(), "", ps.Logo)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, settingsOut(ps, logo))
}

func (s *Server) putPortalSettings(w http.ResponseWriter, r *http.Request) {
	var in wire.PortalSettings
	if err := s.decodeUpTo(w, r, brandingBodyLimit, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	if !in.UpdatedAt.IsZero() {
		s.writeError(w, r, invalid("updated_at", "is set by hookd"))
		return
	}
	ps, err := settingsIn(in, s.now().UTC())
	if err == nil {
		err = s.store.PutPortalSettings(r.Context(), ps)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.log.Info("portal settings put", "product_name", ps.ProductName, "logo", logoKind(ps.Logo), "theme", ps.Theme, "by", scope(r).Actor())
	writeJSON(w, http.StatusOK, settingsOut(ps, in.Logo))
}

// settingsOut is the portal's settings as the API shows them.
func settingsOut(ps store.PortalSettings, logo string) wire.PortalSettings {
	return wire.PortalSettings{ProductName: ps.ProductName, Logo: logo, AccentColor: ps.AccentColor,
		Theme: wire.PortalSettingsTheme(cmp.Or(ps.Theme, ThemeLight)), SupportURL: ps.SupportURL, UpdatedAt: ps.UpdatedAt}
}

func (s *Server) getTenantBranding(w http.ResponseWriter, r *http.Request) {
	b, err := s.store.TenantBranding(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		s.writeError(w, r, notFound(err, "tenant"))
		return
	}
	logo, err := s.logoOut(r.Context(), b.TenantID, b.Logo)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, brandingOut(b, logo))
}

func (s *Server) putTenantBranding(w http.ResponseWriter, r *http.Request) {
	var in wire.TenantPortalBranding
	if err := s.decodeUpTo(w, r, brandingBodyLimit, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	id := chi.URLParam(r, "id")
	b := store.TenantBranding{TenantID: id, ProductName: in.ProductName, UpdatedAt: s.now().UTC()}
	err := validateTenantID("tenant_id", id)
	switch {
	case err != nil:
	case in.TenantID != "" && in.TenantID != id:
		err = invalid("tenant_id", "must be the tenant of the path, or left out")
	case !in.UpdatedAt.IsZero():
		err = invalid("updated_at", "is set by hookd")
	default:
		err = checkProductName(in.ProductName)
	}
	if err == nil {
		b.Logo, err = parseLogo("logo", in.Logo)
	}
	if err == nil {
		err = notFound(s.store.PutTenantBranding(r.Context(), b), "tenant")
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.log.Info("tenant portal branding put", "tenant_id", id, "product_name", b.ProductName, "logo", logoKind(b.Logo), "by", scope(r).Actor())
	writeJSON(w, http.StatusOK, brandingOut(b, in.Logo))
}

// brandingOut is a tenant's portal branding as the API shows it.
func brandingOut(b store.TenantBranding, logo string) wire.TenantPortalBranding {
	return wire.TenantPortalBranding{TenantID: b.TenantID, ProductName: b.ProductName, Logo: logo, UpdatedAt: b.UpdatedAt}
}

// logoOut is a logo as the API shows it: its URL, or the stored image as
// a data: URL, read from the store (of tenantID, "" the platform's).
func (s *Server) logoOut(ctx context.Context, tenantID string, l store.Logo) (string, error) {
	if !l.Stored() {
		return l.URL, nil
	}
	full, err := s.store.PortalLogo(ctx, tenantID)
	if err != nil {
		return "", err
	}
	return logoDataURL(full), nil
}

// Branding is how the portal presents itself in a scope: the platform's
// settings with the scope's tenant's overrides applied.
type Branding struct {
	// ProductName is never empty: DefaultProductName when none is set.
	ProductName string
	// Logo is without its image; LogoOwner is the tenant whose stored
	// logo it is ("" the platform's).
	Logo      store.Logo
	LogoOwner string
	// AccentColor is "#rrggbb" or "" (the default); Theme is light, dark
	// or auto; SupportURL may be "".
	AccentColor, Theme, SupportURL string
}

// PortalBranding returns how the portal presents itself in the scope of
// ctx: a tenant scope gets its tenant's overrides, any other the
// platform's settings (the sign-in page has no scope yet).
func (s *Server) PortalBranding(ctx context.Context) (Branding, error) {
	ps, err := s.store.PortalSettings(ctx)
	if err != nil {
		return Branding{}, err
	}
	out := Branding{ProductName: ps.ProductName, Logo: ps.Logo, AccentColor: ps.AccentColor, Theme: ps.Theme, SupportURL: ps.SupportURL}
	if tenant := authz.FromContext(ctx).TenantID(); tenant != "" {
		tb, err := s.store.TenantBranding(ctx, tenant)
		if err != nil {
			return Branding{}, err
		}
		if tb.ProductName != "" {
			out.ProductName = tb.ProductName
		}
		if tb.Logo.Stored() || tb.Logo.URL != "" {
			out.Logo, out.LogoOwner = tb.Logo, tenant
		}
	}
	if out.ProductName == "" {
		out.ProductName = DefaultProductName
	}
	if out.Theme == "" {
		out.Theme = ThemeLight
	}
	return out, nil
}

// PortalLogo returns the stored logo image the portal shows in the scope
// of ctx, or store.ErrNotFound when it shows none stored in hookd.
func (s *Server) PortalLogo(ctx context.Context) (store.Logo, error) {
	b, err := s.PortalBranding(ctx)
	if err != nil {
		return store.Logo{}, err
	}
	if !b.Logo.Stored() {
		return store.Logo{}, store.ErrNotFound
	}
	return s.store.PortalLogo(ctx, b.LogoOwner)
}
