package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/hookd/hookd/internal/store"
)

// PortalSettings returns the platform's portal settings (the zero value
// when never put), a stored logo without its image.
func (s *Store) PortalSettings(ctx context.Context) (store.PortalSettings, error) {
	var (
		out     store.PortalSettings
		updated int64
	)
	err := s.read.QueryRowContext(ctx, `SELECT product_name, logo_url, logo_type, logo_digest, accent_color, theme, support_url, updated_at
		FROM hookd_portal_settings WHERE id = 1`).Scan(&out.ProductName, &out.Logo.URL, &out.Logo.ContentType, &out.Logo.Digest,
		&out.AccentColor, &out.Theme, &out.SupportURL, &updated)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return store.PortalSettings{}, nil
	case err != nil:
		return store.PortalSettings{}, fmt.Errorf("portal settings: %w", err)
	}
	out.UpdatedAt = fromNanos(updated)
	return out, nil
}

// PutPortalSettings replaces the platform's portal settings.
func (s *Store) PutPortalSettings(ctx context.Context, ps store.PortalSettings) error {
	image, digest := logoColumns(ps.Logo)
	_, err := s.write.ExecContext(ctx, `INSERT INTO hookd_portal_settings
		(id, product_name, logo_url, logo_type, logo_image, logo_digest, accent_color, theme, support_url, updated_at)
		VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (id) DO UPDATE SET product_name = excluded.product_name, logo_url = excluded.logo_url,
		logo_type = excluded.logo_type, logo_image = excluded.logo_image, logo_digest = excluded.logo_digest,
		accent_color = excluded.accent_color, theme = excluded.theme, support_url = excluded.support_url,
		updated_at = excluded.updated_at`,
		ps.ProductName, ps.Logo.URL, ps.Logo.ContentType, image, digest, ps.AccentColor, ps.Theme, ps.SupportURL, ps.UpdatedAt.UnixNano())
	if err != nil {
		return fmt.Errorf("put portal settings: %w", err)
	}
	return nil
}

// TenantBranding returns the tenant's branding (zero but TenantID when
// never put), or store.ErrNotFound when there is no such tenant.
func (s *Store) TenantBranding(ctx context.Context, tenantID string) (store.TenantBranding, error) {
	out := store.TenantBranding{TenantID: tenantID}
	var (
		exists  int
		name    sql.NullString
		url     sql.NullString
		typ     sql.NullString
		digest  sql.NullString
		updated sql.NullInt64
	)
	err := s.read.QueryRowContext(ctx, `SELECT 1, b.product_name, b.logo_url, b.logo_type, b.logo_digest, b.updated_at
		FROM hookd_tenants t LEFT JOIN hookd_tenant_branding b ON b.tenant_id = t.id WHERE t.id = $1`, tenantID).
		Scan(&exists, &name, &url, &typ, &digest, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.TenantBranding{}, fmt.Errorf("tenant branding of %s: %w", tenantID, err)
	}
	out.ProductName, out.Logo = name.String, store.Logo{URL: url.String, ContentType: typ.String, Digest: digest.String}
	if updated.Valid {
		out.UpdatedAt = fromNanos(updated.Int64)
	}
	return out, nil
}

// PutTenantBranding replaces the tenant's branding, or returns
// store.ErrNotFound when there is no such tenant.
func (s *Store) PutTenantBranding(ctx context.Context, b store.TenantBranding) error {
	image, digest := logoColumns(b.Logo)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := s.lockTenant(ctx, tx, b.TenantID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO hookd_tenant_branding
			(tenant_id, product_name, logo_url, logo_type, logo_image, logo_digest, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (tenant_id) DO UPDATE SET product_name = excluded.product_name, logo_url = excluded.logo_url,
			logo_type = excluded.logo_type, logo_image = excluded.logo_image, logo_digest = excluded.logo_digest,
			updated_at = excluded.updated_at`,
			b.TenantID, b.ProductName, b.Logo.URL, b.Logo.ContentType, image, digest, b.UpdatedAt.UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("put tenant branding of %s: %w", b.TenantID, err)
	}
	return nil
}

// PortalLogo returns the stored logo of the tenant ("": the platform's),
// image included, or store.ErrNotFound when it has none.
func (s *Store) PortalLogo(ctx context.Context, tenantID string) (store.Logo, error) {
	q := `SELECT logo_url, logo_type, logo_image, logo_digest FROM hookd_portal_settings WHERE id = 1`
	args := []any{}
	if tenantID != "" {
		q, args = `SELECT logo_url, logo_type, logo_image, logo_digest FROM hookd_tenant_branding WHERE tenant_id = $1`, []any{tenantID}
	}
	var l store.Logo
	err := s.read.QueryRowContext(ctx, q, args...).Scan(&l.URL, &l.ContentType, &l.Image, &l.Digest)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !l.Stored()) {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.Logo{}, fmt.Errorf("portal logo of %q: %w", tenantID, err)
	}
	return l, nil
}

// logoColumns are the stored image and its digest of a logo (nil and ""
// without one).
func logoColumns(l store.Logo) ([]byte, string) {
	if !l.Stored() {
		return nil, ""
	}
	sum := sha256.Sum256(l.Image)
	return l.Image, hex.EncodeToString(sum[:])
}
