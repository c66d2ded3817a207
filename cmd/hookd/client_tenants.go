package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hookd/hookd/apiclient"
)

// The tenant commands and the deliveries list join the client commands
// from here, so the tenant additions stay in one file.
func init() {
	clientGroups["tenants"] = map[string]clientCommand{
		"put": tenantsPut, "get": tenantsGet, "list": tenantsList, "delete": tenantsDelete, "token": tenantsToken,
	}
	clientGroups["deliveries"]["list"] = deliveriesList
}

// tenantFlag adds --tenant, the tenant a command acts on or filters by.
func (cf *clientFlags) tenantFlag(v *string, usage string) {
	cf.StringVar(v, "tenant", "", usage)
}

func tenantsPut(ctx context.Context, e *clientEnv, name string, args []string) error {
	cf := e.newClientFlags(name, "ID [--name N] [--metadata k=v ...] [flags]").withJSON()
	var in apiclient.TenantInput
	var metadata stringList
	cf.StringVar(&in.Name, "name", "", "the tenant's display name")
	cf.Var(&metadata, "metadata", "key=value metadata (repeatable); a put replaces all of it")
	id, c, err := cf.idClient(args, "tenant ID")
	if err != nil {
		return err
	}
	if in.Metadata, err = keyValues(metadata); err != nil {
		return err
	}
	t, created, err := c.PutTenant(ctx, id, in)
	return answer(e, cf, t, err, func(e *clientEnv, t *apiclient.Tenant) {
		verb := "Updated"
		if created {
			verb = "Created"
		}
		fmt.Fprintf(e.stdout, "%s tenant %s.\n\n", verb, t.ID)
		printTenant(e, t)
	})
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
			return nil, fmt.Errorf("--metadata %q: want key=value", kv)
		}
		md[k] = v
	}
	return md, nil
}

var tenantsGet = showOne("ID", "tenant ID", (*apiclient.Client).GetTenant, printTenant)

func printTenant(e *clientEnv, t *apiclient.Tenant) {
	var md []string
	for k, v := range t.Metadata {
		md = append(md, k+"="+v)
	}
	sort.Strings(md)
	fields(e.stdout, "ID", t.ID, "Name", t.Name, "Metadata", strings.Join(md, ", "),
		"Created", stamp(t.CreatedAt), "Updated", stamp(t.UpdatedAt))
}

func tenantsList(ctx context.Context, e *clientEnv, name string, args []string) error {
	cf := e.newClientFlags(name, "[--limit N] [--cursor C] [--all] [flags]").withJSON()
	var pf pageFlags
	pf.register(cf, "tenants")
	c, err := cf.parseClient(args)
	if err != nil {
		return err
	}
	return printPages(e, cf, pf, []string{"ID", "NAME", "CREATED"}, "No tenants.",
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
}

// printPages prints the pages fetch returns (every page with --all): the
// API's JSON with --json, else one table of the rows, or none when there
// are no rows; then how to get the next page.
func printPages(e *clientEnv, cf *clientFlags, pf pageFlags, header []string, none string,
	fetch func(apiclient.Page) (json.RawMessage, [][]any, string, error)) error {
	tw, n := table(e.stdout, header...), 0
	next, err := eachPage(pf.Page, pf.all, func(p apiclient.Page) (string, error) {
		raw, rows, next, err := fetch(p)
		switch {
		case err != nil:
			return "", err
		case cf.json:
			return next, printJSON(e.stdout, raw)
		}
		for _, cells := range rows {
			row(tw, cells...)
		}
		n += len(rows)
		return next, nil
	})
	switch {
	case err != nil:
		return err
	case cf.json:
	case n == 0:
		fmt.Fprintln(e.stdout, none)
	default:
		tw.Flush()
	}
	e.moreHint(next)
	return nil
}

func tenantsDelete(ctx context.Context, e *clientEnv, name string, args []string) error {
	id, c, err := e.newClientFlags(name, "ID [flags]").idClient(args, "tenant ID")
	if err != nil {
		return err
	}
	if err := c.DeleteTenant(ctx, id); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Deleted tenant %s, its endpoints and its tokens.\n", id)
	return nil
}

// tenantsToken issues a tenant token, or with --revoke revokes them all.
func tenantsToken(ctx context.Context, e *clientEnv, name string, args []string) error {
	cf := e.newClientFlags(name, "ID [--expires-in 24h | --revoke] [flags]").withJSON()
	var expiresIn time.Duration
	var revoke bool
	cf.DurationVar(&expiresIn, "expires-in", 24*time.Hour, "how long the token is valid")
	cf.BoolVar(&revoke, "revoke", false, "revoke every token of the tenant instead")
	id, c, err := cf.idClient(args, "tenant ID")
	if err != nil {
		return err
	}
	if revoke {
		if cf.isSet("expires-in") {
			return errors.New("--revoke and --expires-in exclude each other")
		}
		res, err := c.RevokeTenantTokens(ctx, id)
		return answer(e, cf, res, err, func(e *clientEnv, r *apiclient.RevokedTokens) {
			fmt.Fprintf(e.stdout, "Revoked %d tokens of tenant %s.\n", r.Revoked, r.TenantID)
		})
	}
	tok, err := c.CreateTenantToken(ctx, id, expiresIn)
	return answer(e, cf, tok, err, func(e *clientEnv, t *apiclient.TenantToken) {
		fields(e.stdout, "Tenant", t.TenantID, "Token", t.Token, "Expires", stamp(t.ExpiresAt))
		fmt.Fprintln(e.stdout, "\nThe token is shown only now. It sees and manages only this tenant's endpoints, deliveries and dead letters.")
	})
}

func deliveriesList(ctx context.Context, e *clientEnv, name string, args []string) error {
	cf := e.newClientFlags(name, "[--tenant T] [--endpoint ID] [--event ID] [--status S] [--limit N] [--all] [flags]").withJSON()
	var f apiclient.DeliveryFilter
	cf.tenantFlag(&f.TenantID, "only this tenant's deliveries")
	cf.StringVar(&f.EndpointID, "endpoint", "", "only deliveries to this endpoint ID")
	cf.StringVar(&f.EventID, "event", "", "only deliveries of this event ID")
	cf.StringVar(&f.Status, "status", "", "only pending, delivered, failed or exhausted deliveries")
	var pf pageFlags
	pf.register(cf, "deliveries")
	c, err := cf.parseClient(args)
	if err != nil {
		return err
	}
	return printPages(e, cf, pf, []string{"DELIVERY", "EVENT TYPE", "ENDPOINT", "TENANT", "STATUS", "CREATED"}, "No deliveries match.",
		func(p apiclient.Page) (json.RawMessage, [][]any, string, error) {
			res, err := c.ListDeliveries(ctx, f, p)
			if err != nil {
				return nil, nil, "", err
			}
			var rows [][]any
			for _, d := range res.Data {
				rows = append(rows, []any{d.ID, d.EventType, d.EndpointID, orDash(d.TenantID), d.Status, stamp(d.CreatedAt)})
			}
			return res.JSON(), rows, res.NextCursor, nil
		})
}
