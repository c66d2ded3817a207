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

// endpointFlags are the fields create and update take.
type endpointFlags struct {
	url, description, schedule, tenant string
	eventTypes, metadata               stringList
	timeout                            time.Duration
	enabled, allTypes                  bool
}

func (ef *endpointFlags) register(cf *clientFlags, update bool) {
	cf.StringVar(&ef.url, "url", "", "URL to deliver to")
	cf.StringVar(&ef.description, "description", "", "description")
	cf.Var(&ef.eventTypes, "event-type", "event type to subscribe to, exact or a prefix such as order.* (repeatable or comma-separated; default all)")
	cf.StringVar(&ef.schedule, "retry-schedule", "", "comma-separated waits before each retry, such as 1s,5s,1m")
	cf.DurationVar(&ef.timeout, "timeout", 0, "HTTP timeout of one attempt, such as 10s")
	cf.Var(&ef.metadata, "metadata", "key=value metadata (repeatable)")
	if !update {
		cf.tenantFlag(&ef.tenant, "the tenant the endpoint belongs to (a tenant token always creates its own)")
	}
	if update {
		cf.BoolVar(&ef.enabled, "enabled", true, "whether deliveries are sent (--enabled=false pauses the endpoint)")
		cf.BoolVar(&ef.allTypes, "all-event-types", false, "subscribe to every event type")
	}
}

// input builds the request body from the flags the user set.
func (ef *endpointFlags) input(cf *clientFlags) (apiclient.EndpointInput, error) {
	var in apiclient.EndpointInput
	if cf.isSet("url") {
		in.URL = &ef.url
	}
	if cf.isSet("description") {
		in.Description = &ef.description
	}
	if len(ef.eventTypes) > 0 || ef.allTypes {
		types := listValues(ef.eventTypes)
		in.EventTypes = &types
	}
	if cf.isSet("retry-schedule") {
		schedule := listValues([]string{ef.schedule})
		in.RetrySchedule = &schedule
	}
	if cf.isSet("timeout") {
		s := ef.timeout.String()
		in.Timeout = &s
	}
	if cf.isSet("enabled") {
		in.Enabled = &ef.enabled
	}
	if len(ef.metadata) > 0 {
		md, err := keyValues(ef.metadata)
		if err != nil {
			return in, err
		}
		in.Metadata = &md
	}
	if ef.tenant != "" {
		in.TenantID = &ef.tenant
	}
	return in, nil
}

// listValues splits comma-separated values and drops empty ones.
func listValues(values []string) []string {
	out := []string{}
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func endpointsCreate(ctx context.Context, e *clientEnv, name string, args []string) error {
	cf := e.newClientFlags(name, "--url URL [--event-type T ...] [flags]").withJSON()
	var ef endpointFlags
	ef.register(cf, false)
	c, err := cf.parseClient(args)
	if err != nil {
		return err
	}
	if ef.url == "" {
		return errors.New("--url is required")
	}
	in, err := ef.input(cf)
	if err != nil {
		return err
	}
	ep, err := c.CreateEndpoint(ctx, in)
	return answer(e, cf, ep, err, printEndpoint)
}

func endpointsUpdate(ctx context.Context, e *clientEnv, name string, args []string) error {
	cf := e.newClientFlags(name, "ID [--url U] [--enabled=false] [flags]").withJSON()
	var ef endpointFlags
	ef.register(cf, true)
	id, c, err := cf.idClient(args, "endpoint ID")
	if err != nil {
		return err
	}
	in, err := ef.input(cf)
	if err != nil {
		return err
	}
	if in == (apiclient.EndpointInput{}) {
		return errors.New("nothing to update: give at least one flag such as --url or --enabled=false")
	}
	ep, err := c.UpdateEndpoint(ctx, id, in)
	return answer(e, cf, ep, err, printEndpoint)
}

var endpointsGet = showOne("ID", "endpoint ID", (*apiclient.Client).GetEndpoint, printEndpoint)

func printEndpoint(e *clientEnv, ep *apiclient.Endpoint) {
	types := strings.Join(ep.EventTypes, ", ")
	if types == "" {
		types = "all"
	}
	var md []string
	for k, v := range ep.Metadata {
		md = append(md, k+"="+v)
	}
	sort.Strings(md)
	fields(e.stdout,
		"ID", ep.ID, "Tenant", ep.TenantID, "URL", ep.URL, "Description", ep.Description, "Event types", types,
		"Enabled", fmt.Sprint(ep.Enabled), "Retry schedule", strings.Join(ep.RetrySchedule, ", "),
		"Timeout", ep.Timeout, "Metadata", strings.Join(md, ", "),
		"Created", stamp(ep.CreatedAt), "Updated", stamp(ep.UpdatedAt), "Secret", ep.Secret)
	if ep.Secret != "" {
		fmt.Fprintln(e.stdout, "\nThe signing secret is shown only now: store it with the receiver.")
	}
}

// pageFlags are the paging flags of a list command.
type pageFlags struct {
	apiclient.Page
	all bool
}

func (pf *pageFlags) register(cf *clientFlags, what string) {
	cf.IntVar(&pf.Limit, "limit", 0, what+" per page (API default 50, at most 500)")
	cf.StringVar(&pf.Cursor, "cursor", "", "cursor of the page to start from")
	cf.BoolVar(&pf.all, "all", false, "fetch every page")
}

func endpointsList(ctx context.Context, e *clientEnv, name string, args []string) error {
	cf := e.newClientFlags(name, "[--tenant T] [--limit N] [--cursor C] [--all] [flags]").withJSON()
	var pf pageFlags
	pf.register(cf, "endpoints")
	var tenant string
	cf.tenantFlag(&tenant, "only this tenant's endpoints")
	c, err := cf.parseClient(args)
	if err != nil {
		return err
	}
	list := c.ListEndpoints
	if tenant != "" {
		list = func(ctx context.Context, p apiclient.Page) (*apiclient.EndpointPage, error) {
			return c.ListTenantEndpoints(ctx, tenant, p)
		}
	}
	return printPages(e, cf, pf, []string{"ID", "URL", "EVENT TYPES", "ENABLED", "CREATED"}, "No endpoints.",
		func(p apiclient.Page) (json.RawMessage, [][]any, string, error) {
			res, err := list(ctx, p)
			if err != nil {
				return nil, nil, "", err
			}
			var rows [][]any
			for _, ep := range res.Data {
				rows = append(rows, []any{ep.ID, ep.URL, orDash(strings.Join(ep.EventTypes, ",")), ep.Enabled, stamp(ep.CreatedAt)})
			}
			return res.JSON(), rows, res.NextCursor, nil
		})
}

func endpointsDelete(ctx context.Context, e *clientEnv, name string, args []string) error {
	id, c, err := e.newClientFlags(name, "ID [flags]").idClient(args, "endpoint ID")
	if err != nil {
		return err
	}
	if err := c.DeleteEndpoint(ctx, id); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Deleted endpoint %s.\n", id)
	return nil
}

func endpointsRotate(ctx context.Context, e *clientEnv, name string, args []string) error {
	cf := e.newClientFlags(name, "ID [--overlap 24h] [flags]").withJSON()
	var overlap time.Duration
	cf.DurationVar(&overlap, "overlap", 24*time.Hour, "how long deliveries are also signed with the previous secret")
	id, c, err := cf.idClient(args, "endpoint ID")
	if err != nil {
		return err
	}
	rs, err := c.RotateSecret(ctx, id, overlap)
	return answer(e, cf, rs, err, func(e *clientEnv, rs *apiclient.RotatedSecret) {
		fields(e.stdout, "Endpoint", rs.EndpointID, "New secret", rs.Secret, "Previous secret expires", stamp(rs.PreviousExpiresAt))
		fmt.Fprintln(e.stdout, "\nThe new secret is shown only now: give it to the receiver before the previous one expires.")
	})
}

func endpointsRecover(ctx context.Context, e *clientEnv, name string, args []string) error {
	cf := e.newClientFlags(name, "ID [--reason R] [flags]").withJSON()
	var reason string
	cf.StringVar(&reason, "reason", "", "why, recorded with who recovered it")
	id, c, err := cf.idClient(args, "endpoint ID")
	if err != nil {
		return err
	}
	rec, err := c.RecoverEndpoint(ctx, id, reason)
	return answer(e, cf, rec, err, printRecovered)
}

func printRecovered(e *clientEnv, r *apiclient.Recovered) {
	was := fmt.Sprintf("circuit was %s with %s", r.PreviousCircuit, count(r.PreviousFailures, "consecutive failure", "consecutive failures"))
	if r.Reenabled {
		was += "; the endpoint was disabled and is enabled again"
	}
	fmt.Fprintf(e.stdout, "Recovered endpoint %s (%s).\n", r.EndpointID, was)
	waiting := count(r.Woken, "waiting delivery", "waiting deliveries")
	switch {
	case r.Woken == 0:
		fmt.Fprintln(e.stdout, "No delivery was waiting on it.")
	case r.Spread == "" || r.Spread == "0s":
		fmt.Fprintf(e.stdout, "%s: attempted now.\n", waiting)
	default:
		fmt.Fprintf(e.stdout, "%s: attempted within %s, spread so the receiver is not hit all at once.\n", waiting, r.Spread)
	}
}
