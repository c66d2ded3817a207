package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hookd/hookd/apiclient"
)

// tenantsCommand is `hookd tenants`.
func tenantsCommand(e *clientEnv) *cobra.Command {
	return e.clientGroup("tenants", "manage tenants and their tokens through the API",
		tenantsPut(e), showOne(e, "get ID", "show a tenant", "tenant ID", (*apiclient.Client).GetTenant, printTenant),
		tenantsList(e), tenantsDelete(e), tenantsToken(e), tenantsPortalLink(e))
}

// tenantFlag adds --tenant, the tenant a command acts on or filters by.
func tenantFlag(fs *pflag.FlagSet, v *string, usage string) {
	fs.StringVar(v, "tenant", "", usage)
}

func tenantsPut(e *clientEnv) *cobra.Command {
	var (
		in       apiclient.TenantInput
		metadata stringList
	)
	cmd := &cobra.Command{
		Use:   "put ID [--name N] [--metadata k=v ...]",
		Short: "create a tenant, or replace its name and metadata",
		Args:  oneArg("tenant ID"),
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, args []string) error {
			var err error
			if in.Metadata, err = keyValues(metadata); err != nil {
				return err
			}
			t, created, err := c.PutTenant(ctx, args[0], in)
			return answer(e, t, err, func(e *clientEnv, t *apiclient.Tenant) {
				fmt.Fprintf(e.stdout, "%s tenant %s.\n\n", createdOrUpdated(created), t.ID)
				printTenant(e, t)
			})
		}),
	}
	cmd.Flags().StringVar(&in.Name, "name", "", "the tenant's display name")
	cmd.Flags().Var(&metadata, "metadata", "key=value metadata (repeatable); a put replaces all of it")
	return cmd
}

// createdOrUpdated is what a put did, as its answer says.
func createdOrUpdated(created bool) string {
	if created {
		return "Created"
	}
	return "Updated"
}

// keyValues reads key=value flags; none is nil.
func keyValues(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	md := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("--metadata %q: want key=value", kv)
		}
		md[k] = v
	}
	return md, nil
}

func printTenant(e *clientEnv, t *apiclient.Tenant) {
	var md []string
	for k, v := range t.Metadata {
		md = append(md, k+"="+v)
	}
	sort.Strings(md)
	fields(e.stdout, "ID", t.ID, "Name", t.Name, "Metadata", strings.Join(md, ", "),
		"Created", stamp(t.CreatedAt), "Updated", stamp(t.UpdatedAt))
}

func tenantsList(e *clientEnv) *cobra.Command {
	var pf pageFlags
	cmd := &cobra.Command{
		Use:   "list [--limit N] [--cursor C] [--all]",
		Short: "list tenants",
		Args:  noArgs,
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, _ []string) error {
			return e.printPages(pf, []string{"ID", "NAME", "CREATED"}, "No tenants.",
				func(p apiclient.Page) (json.RawMessage, [][]any, string, error) {
					res, err := c.ListTenants(ctx, p)
					if err != nil {
						return nil, nil, "", err
					}
					var rows [][]any
					for _, t := range res.Data {
						rows = append(rows, []any{t.ID, orDash(t.Name), stamp(t.CreatedAt)})
					}
					return res.JSON(), rows, res.NextCursor, nil
				})
		}),
	}
	pf.register(cmd.Flags(), "tenants")
	return cmd
}

func tenantsDelete(e *clientEnv) *cobra.Command {
	return deleteOne(e, "delete a tenant, its endpoints and its tokens", "tenant ID", "Deleted tenant %s, its endpoints and its tokens.", (*apiclient.Client).DeleteTenant)
}

// tenantsToken issues a tenant token, or with --revoke revokes them all.
func tenantsToken(e *clientEnv) *cobra.Command {
	var (
		expiresIn time.Duration
		revoke    bool
	)
	cmd := &cobra.Command{
		Use:   "token ID [--expires-in 24h | --revoke]",
		Short: "issue a token that sees only this tenant (shown only now), or revoke them all",
		Args:  oneArg("tenant ID"),
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, cmd *cobra.Command, args []string) error {
			if revoke {
				if cmd.Flags().Changed("expires-in") {
					return usagef("--revoke and --expires-in exclude each other")
				}
				res, err := c.RevokeTenantTokens(ctx, args[0])
				return answer(e, res, err, func(e *clientEnv, r *apiclient.RevokedTokens) {
					fmt.Fprintf(e.stdout, "Revoked %s of tenant %s.\n", count(r.Revoked, "token", "tokens"), r.TenantID)
				})
			}
			tok, err := c.CreateTenantToken(ctx, args[0], expiresIn)
			return answer(e, tok, err, func(e *clientEnv, t *apiclient.TenantToken) {
				fields(e.stdout, "Tenant", t.TenantID, "Token", t.Token, "Expires", stamp(t.ExpiresAt))
				fmt.Fprintln(e.stdout, "\nThe token is shown only now. It sees and manages only this tenant's endpoints, deliveries and dead letters.")
			})
		}),
	}
	cmd.Flags().DurationVar(&expiresIn, "expires-in", 24*time.Hour, "how long the token is valid")
	cmd.Flags().BoolVar(&revoke, "revoke", false, "revoke every token of the tenant instead")
	return cmd
}

// tenantsPortalLink issues a portal sign-in link, or with --end-sessions
// ends the tenant's portal sessions.
func tenantsPortalLink(e *clientEnv) *cobra.Command {
	var (
		o       apiclient.PortalLinkOptions
		without stringList
		end     bool
	)
	cmd := &cobra.Command{
		Use:   "portal-link ID [--session-ttl 24h] [--read-only] [--without reveal_secret ...] | --end-sessions",
		Short: "issue a single-use sign-in link to the tenant's portal, or end its portal sessions",
		Args:  oneArg("tenant ID"),
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, cmd *cobra.Command, args []string) error {
			if end {
				if cmd.Flags().Changed("session-ttl") || o.ReadOnly || len(without) > 0 {
					return usagef("--end-sessions takes no link options")
				}
				res, err := c.EndPortalSessions(ctx, args[0])
				return answer(e, res, err, func(e *clientEnv, r *apiclient.EndedPortalSessions) {
					fmt.Fprintf(e.stdout, "Ended %s of tenant %s.\n", count(r.Ended, "portal session", "portal sessions"), r.TenantID)
				})
			}
			o.Without = without
			link, err := c.CreatePortalLink(ctx, args[0], o)
			return answer(e, link, err, func(e *clientEnv, l *apiclient.PortalLink) {
				var lacks []string
				c := l.Capabilities
				for name, ok := range map[string]*bool{"manage_endpoints": c.ManageEndpoints, "reveal_secret": c.RevealSecret,
					"rotate_secret": c.RotateSecret, "send_test": c.SendTest, "recover": c.Recover, "redrive": c.Redrive} {
					if ok != nil && !*ok {
						lacks = append(lacks, name)
					}
				}
				sort.Strings(lacks)
				fields(e.stdout, "Tenant", l.TenantID, "Link", l.URL, "Link expires", stamp(l.ExpiresAt),
					"Session lasts", l.SessionTTL, "Without", strings.Join(lacks, ", "))
				fmt.Fprintln(e.stdout, "\nThe link works once. Open it in the customer's browser (or its iframe) to sign in.")
			})
		}),
	}
	cmd.Flags().DurationVar(&o.SessionTTL, "session-ttl", 24*time.Hour, "how long the session the link opens lasts (1h to 168h)")
	cmd.Flags().BoolVar(&o.ReadOnly, "read-only", false, "a session that changes nothing (it may still reveal secrets unless --without reveal_secret)")
	cmd.Flags().Var(&without, "without", "a capability the session goes without (repeatable): manage_endpoints, reveal_secret, rotate_secret, send_test, recover, redrive")
	cmd.Flags().BoolVar(&end, "end-sessions", false, "end every portal session of the tenant (and void its unused links) instead")
	return cmd
}
