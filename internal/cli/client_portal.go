package cli

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hookd/hookd/apiclient"
)

// portalCommand is `hookd portal`: how the consumer portal presents
// itself.
func portalCommand(e *clientEnv) *cobra.Command {
	return e.clientGroup("portal", "brand the consumer portal: its settings, and a tenant's own name and logo",
		group("settings", "show or change the portal's name, logo, accent colour, theme and help link",
			portalSettingsShow(e), portalSettingsSet(e)),
		group("branding", "show or change the name and logo one tenant's portal shows instead",
			tenantBrandingShow(e), tenantBrandingSet(e)))
}

func portalSettingsShow(e *clientEnv) *cobra.Command {
	return &cobra.Command{
		Use:   "show",
		Short: "show the portal's settings",
		Args:  noArgs,
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, _ []string) error {
			s, err := c.GetPortalSettings(ctx)
			return answer(e, s, err, printPortalSettings)
		}),
	}
}

// logoFlags are --logo and --logo-file, which set a logo by URL or from
// an image file.
type logoFlags struct{ url, file string }

func (l *logoFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&l.url, "logo", "", `the logo's https URL ("" for none)`)
	fs.StringVar(&l.file, "logo-file", "", "a PNG, JPEG or SVG image of at most 256 KiB that hookd stores and serves")
}

// apply sets *logo from the flags that were given, and reports whether
// one was.
func (l *logoFlags) apply(cmd *cobra.Command, logo *string) (bool, error) {
	changedURL, changedFile := cmd.Flags().Changed("logo"), cmd.Flags().Changed("logo-file")
	switch {
	case changedURL && changedFile:
		return false, usagef("--logo and --logo-file exclude each other")
	case changedURL:
		*logo = l.url
	case changedFile:
		image, err := os.ReadFile(l.file)
		if err != nil {
			return false, usagef("--logo-file: %v", err)
		}
		typ := http.DetectContentType(image)
		if strings.HasSuffix(strings.ToLower(l.file), ".svg") {
			typ = "image/svg+xml"
		}
		*logo = apiclient.LogoDataURL(typ, image)
	}
	return changedURL || changedFile, nil
}

func portalSettingsSet(e *clientEnv) *cobra.Command {
	var (
		in   apiclient.PortalSettings
		logo logoFlags
	)
	cmd := &cobra.Command{
		Use:   "set [--product-name N] [--logo URL | --logo-file F] [--accent-color #rrggbb] [--theme light|dark|auto] [--support-url URL]",
		Short: "change the settings the flags name; the others keep their values",
		Args:  noArgs,
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, cmd *cobra.Command, _ []string) error {
			cur, err := c.GetPortalSettings(ctx)
			if err != nil {
				return err
			}
			changed := false
			for flag, v := range map[string][2]*string{"product-name": {&cur.ProductName, &in.ProductName},
				"accent-color": {&cur.AccentColor, &in.AccentColor}, "theme": {(*string)(&cur.Theme), (*string)(&in.Theme)}, "support-url": {&cur.SupportURL, &in.SupportURL}} {
				if cmd.Flags().Changed(flag) {
					*v[0], changed = *v[1], true
				}
			}
			logoChanged, err := logo.apply(cmd, &cur.Logo)
			if err != nil {
				return err
			}
			if !changed && !logoChanged {
				return usagef("name a setting to change: --product-name, --logo, --logo-file, --accent-color, --theme or --support-url")
			}
			s, err := c.PutPortalSettings(ctx, cur.PortalSettings)
			return answer(e, s, err, func(e *clientEnv, s *apiclient.PortalSettings) {
				fmt.Fprintf(e.stdout, "Portal settings saved.\n\n")
				printPortalSettings(e, s)
			})
		}),
	}
	fs := cmd.Flags()
	fs.StringVar(&in.ProductName, "product-name", "", `the name the portal shows instead of "Webhooks" ("" for the default)`)
	fs.StringVar(&in.AccentColor, "accent-color", "", `the colour of buttons and links, #rrggbb ("" for the default)`)
	fs.StringVar((*string)(&in.Theme), "theme", "", "light, dark, or auto (the viewer's preference)")
	fs.StringVar(&in.SupportURL, "support-url", "", `an https URL the portal links to as "Help" ("" for none)`)
	logo.register(fs)
	return cmd
}

func printPortalSettings(e *clientEnv, s *apiclient.PortalSettings) {
	updated := "never"
	if !s.UpdatedAt.IsZero() {
		updated = stamp(s.UpdatedAt)
	}
	fields(e.stdout, "Product name", orDefault(s.ProductName, "Webhooks (default)"), "Logo", logoSummary(s.Logo),
		"Accent colour", orDefault(s.AccentColor, "default"), "Theme", string(s.Theme), "Support link", orDash(s.SupportURL), "Updated", updated)
}

func tenantBrandingShow(e *clientEnv) *cobra.Command {
	return showOne(e, "show TENANT", "show the name and logo a tenant's portal shows instead of the platform's", "tenant ID",
		(*apiclient.Client).GetTenantPortalBranding, printTenantBranding)
}

func tenantBrandingSet(e *clientEnv) *cobra.Command {
	var (
		name string
		logo logoFlags
	)
	cmd := &cobra.Command{
		Use:   "set TENANT [--product-name N] [--logo URL | --logo-file F]",
		Short: `change a tenant's own portal name or logo ("" keeps the platform's)`,
		Args:  oneArg("tenant ID"),
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, cmd *cobra.Command, args []string) error {
			cur, err := c.GetTenantPortalBranding(ctx, args[0])
			if err != nil {
				return err
			}
			changed := cmd.Flags().Changed("product-name")
			if changed {
				cur.ProductName = name
			}
			logoChanged, err := logo.apply(cmd, &cur.Logo)
			if err != nil {
				return err
			}
			if !changed && !logoChanged {
				return usagef("name what to change: --product-name, --logo or --logo-file")
			}
			b, err := c.PutTenantPortalBranding(ctx, args[0], cur.TenantPortalBranding)
			return answer(e, b, err, func(e *clientEnv, b *apiclient.TenantPortalBranding) {
				fmt.Fprintf(e.stdout, "Portal branding of tenant %s saved.\n\n", b.TenantID)
				printTenantBranding(e, b)
			})
		}),
	}
	cmd.Flags().StringVar(&name, "product-name", "", `the name this tenant's portal shows ("" for the platform's)`)
	logo.register(cmd.Flags())
	return cmd
}

func printTenantBranding(e *clientEnv, b *apiclient.TenantPortalBranding) {
	fields(e.stdout, "Tenant", b.TenantID, "Product name", orDefault(b.ProductName, "the platform's"),
		"Logo", orDefault(logoSummary(b.Logo), "the platform's"))
}

// logoSummary says what a logo is without printing a stored image.
func logoSummary(logo string) string {
	if meta, data, ok := strings.Cut(logo, ","); ok && strings.HasPrefix(meta, "data:") {
		image, _ := base64.StdEncoding.DecodeString(data)
		return fmt.Sprintf("stored image (%s, %d bytes)", strings.TrimSuffix(strings.TrimPrefix(meta, "data:"), ";base64"), len(image))
	}
	return orDefault(logo, "none")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
