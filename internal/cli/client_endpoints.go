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
	"github.com/hookd/hookd/apiclient/wire"
)

// endpointFlags are the fields create and update take.
type endpointFlags struct {
	url, description, schedule, tenant string
	filter                             string
	eventTypes, metadata               stringList
	timeout                            time.Duration
	rate, burst                        int
	enabled, allTypes, propagateTrace  bool
	creds                              credentialFlags
	signing                            signingFlags
}

func (ef *endpointFlags) register(fs *pflag.FlagSet, update bool) {
	fs.StringVar(&ef.url, "url", "", "URL to deliver to")
	fs.StringVar(&ef.description, "description", "", "description")
	fs.Var(&ef.eventTypes, "event-type", "event type to subscribe to, exact or a prefix such as order.* (repeatable or comma-separated; default all)")
	fs.StringVar(&ef.filter, "filter", "", `content filter: a CEL expression over type, tenant_id, event_id and payload, such as 'payload.amount > 1000' ("" removes it)`)
	fs.StringVar(&ef.schedule, "retry-schedule", "", "comma-separated waits before each retry, such as 1s,5s,1m")
	fs.DurationVar(&ef.timeout, "timeout", 0, "HTTP timeout of one attempt, such as 10s")
	fs.Var(&ef.metadata, "metadata", "key=value metadata (repeatable)")
	fs.IntVar(&ef.rate, "rate-limit", 0, "most attempts a second the endpoint receives, 1 to 10000, summed over every worker (0 removes the limit)")
	fs.IntVar(&ef.burst, "rate-burst", 0, "most attempts at once under --rate-limit, 1 to its value (default 1)")
	fs.BoolVar(&ef.propagateTrace, "propagate-trace", false, "send each attempt's W3C trace context (traceparent) to the receiver when hookd traces")
	ef.creds.register(fs, update)
	ef.signing.register(fs, update)
	if !update {
		tenantFlag(fs, &ef.tenant, "the tenant the endpoint belongs to (a tenant token always creates its own)")
		return
	}
	fs.BoolVar(&ef.enabled, "enabled", true, "whether deliveries are sent (--enabled=false pauses the endpoint)")
	fs.BoolVar(&ef.allTypes, "all-event-types", false, "subscribe to every event type")
}

// input builds the request body from the flags the user set.
func (ef *endpointFlags) input(fs *pflag.FlagSet) (apiclient.EndpointInput, error) {
	var in apiclient.EndpointInput
	if fs.Changed("url") {
		in.URL = &ef.url
	}
	if fs.Changed("description") {
		in.Description = &ef.description
	}
	if len(ef.eventTypes) > 0 || ef.allTypes {
		types := listValues(ef.eventTypes)
		in.EventTypes = &types
	}
	if fs.Changed("filter") {
		in.Filter = &ef.filter
	}
	if fs.Changed("retry-schedule") {
		schedule := listValues([]string{ef.schedule})
		in.RetrySchedule = &schedule
	}
	if fs.Changed("timeout") {
		s := ef.timeout.String()
		in.Timeout = &s
	}
	if fs.Changed("enabled") {
		in.Enabled = &ef.enabled
	}
	if fs.Changed("propagate-trace") {
		in.PropagateTrace = &ef.propagateTrace
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
	switch {
	case fs.Changed("rate-burst") && !fs.Changed("rate-limit"):
		return in, usagef("--rate-burst needs --rate-limit")
	case fs.Changed("rate-limit") && ef.rate == 0:
		in.RemoveRateLimit = true
	case fs.Changed("rate-limit"):
		in.RateLimit = &apiclient.RateLimit{PerSecond: ef.rate, Burst: wire.Optional(ef.burst)}
	}
	if err := ef.creds.input(fs, &in); err != nil {
		return in, err
	}
	if err := ef.signing.input(fs, &in); err != nil {
		return in, err
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

// endpointsCommand is `hookd endpoints`.
func endpointsCommand(e *clientEnv) *cobra.Command {
	return e.clientGroup("endpoints", "manage endpoints through the API",
		endpointsCreate(e), endpointsList(e),
		showOne(e, "get ID", "show one endpoint", "endpoint ID", (*apiclient.Client).GetEndpoint, printEndpoint),
		endpointsUpdate(e), endpointsDelete(e), endpointsRotate(e), endpointsRecover(e))
}

func endpointsCreate(e *clientEnv) *cobra.Command {
	var ef endpointFlags
	cmd := &cobra.Command{
		Use:   "create --url URL [--event-type T ...] [--tenant T]",
		Short: "create an endpoint; its signing secret is shown only now",
		Args:  noArgs,
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, cmd *cobra.Command, _ []string) error {
			if ef.url == "" {
				return usagef("--url is required")
			}
			in, err := ef.input(cmd.Flags())
			if err != nil {
				return err
			}
			ep, err := c.CreateEndpoint(ctx, in)
			return answer(e, ep, err, printEndpoint)
		}),
	}
	ef.register(cmd.Flags(), false)
	return cmd
}

func endpointsUpdate(e *clientEnv) *cobra.Command {
	var ef endpointFlags
	cmd := &cobra.Command{
		Use:   "update ID [--url U] [--enabled=false] ...",
		Short: "change an endpoint's URL, filter, schedule, timeout, metadata or switch",
		Args:  oneArg("endpoint ID"),
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, cmd *cobra.Command, args []string) error {
			in, err := ef.input(cmd.Flags())
			if err != nil {
				return err
			}
			if in == (apiclient.EndpointInput{}) {
				return usagef("nothing to update: give at least one flag such as --url or --enabled=false")
			}
			if err := completeTLS(ctx, c, args[0], &in); err != nil {
				return err
			}
			ep, err := c.UpdateEndpoint(ctx, args[0], in)
			return answer(e, ep, err, printEndpoint)
		}),
	}
	ef.register(cmd.Flags(), true)
	return cmd
}

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
	cert, ca := tlsLines(ep.TLS)
	expires := stamp(ep.TLS.NotAfter)
	fields(e.stdout,
		"ID", ep.ID, "Tenant", ep.TenantID, "URL", ep.URL, "Description", ep.Description, "Event types", types, "Filter", ep.Filter,
		"Enabled", enabledLine(ep), "Retry schedule", strings.Join(ep.RetrySchedule, ", "),
		"Timeout", ep.Timeout, "Rate limit", rateLine(ep.RateLimit),
		"Metadata", strings.Join(md, ", "), "Headers", headersLine(ep.Headers), "Auth", authLine(ep.Auth),
		"Signing", signingLine(ep.Signing), "Propagate trace", fmt.Sprint(ep.PropagateTrace),
		"TLS client certificate", cert, "TLS certificate expires", expires, "TLS CA", ca,
		"Created", stamp(ep.CreatedAt), "Updated", stamp(ep.UpdatedAt), "Secret", ep.Secret)
	if ep.Secret != "" {
		fmt.Fprintln(e.stdout, "\nThe signing secret is shown only now: store it with the receiver.")
	}
	if len(ep.Warnings) > 0 {
		fmt.Fprintln(e.stdout)
	}
	for _, w := range ep.Warnings {
		fmt.Fprintf(e.stdout, "Warning: %s entry %q %s.\n", w.Field, w.Value, w.Message)
	}
}

// rateLine is a rate limit in one line ("" for none).
func rateLine(l *apiclient.RateLimit) string {
	if l == nil {
		return ""
	}
	return fmt.Sprintf("%d/s, burst %d", l.PerSecond, max(wire.Deref(l.Burst), 1))
}

// enabledLine is "true", or "false" with why the endpoint is disabled.
func enabledLine(ep *apiclient.Endpoint) string {
	if ep.Enabled || ep.DisabledReason == "" {
		return fmt.Sprint(ep.Enabled)
	}
	return "false (" + string(ep.DisabledReason) + ")"
}

// pageFlags are the paging flags of a list command.
type pageFlags struct {
	apiclient.Page
	all bool
}

func (pf *pageFlags) register(fs *pflag.FlagSet, what string) {
	fs.IntVar(&pf.Limit, "limit", 0, what+" per page (API default 50, at most 500)")
	fs.StringVar(&pf.Cursor, "cursor", "", "cursor of the page to start from")
	fs.BoolVar(&pf.all, "all", false, "fetch every page")
}

func endpointsList(e *clientEnv) *cobra.Command {
	var (
		pf     pageFlags
		tenant string
	)
	cmd := &cobra.Command{
		Use:   "list [--tenant T] [--limit N] [--cursor C] [--all]",
		Short: "list endpoints",
		Args:  noArgs,
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, _ []string) error {
			list := c.ListEndpoints
			if tenant != "" {
				list = func(ctx context.Context, p apiclient.Page) (*apiclient.EndpointPage, error) {
					return c.ListTenantEndpoints(ctx, tenant, p)
				}
			}
			return e.printPages(pf, []string{"ID", "URL", "EVENT TYPES", "ENABLED", "CREATED"}, "No endpoints.",
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
		}),
	}
	pf.register(cmd.Flags(), "endpoints")
	tenantFlag(cmd.Flags(), &tenant, "only this tenant's endpoints")
	return cmd
}

func endpointsDelete(e *clientEnv) *cobra.Command {
	return deleteOne(e, "delete an endpoint and its secrets", "endpoint ID", "Deleted endpoint %s.", (*apiclient.Client).DeleteEndpoint)
}

func endpointsRotate(e *clientEnv) *cobra.Command {
	var overlap time.Duration
	cmd := &cobra.Command{
		Use:   "rotate ID [--overlap 24h]",
		Short: "give an endpoint a new signing secret, shown only now",
		Args:  oneArg("endpoint ID"),
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, args []string) error {
			rs, err := c.RotateSecret(ctx, args[0], overlap)
			return answer(e, rs, err, func(e *clientEnv, rs *apiclient.RotatedSecret) {
				fields(e.stdout, "Endpoint", rs.EndpointID, "New secret", rs.Secret, "Previous secret expires", stamp(rs.PreviousExpiresAt))
				fmt.Fprintln(e.stdout, "\nThe new secret is shown only now: give it to the receiver before the previous one expires.")
			})
		}),
	}
	cmd.Flags().DurationVar(&overlap, "overlap", 24*time.Hour, "how long deliveries are also signed with the previous secret")
	return cmd
}

func endpointsRecover(e *clientEnv) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "recover ID [--reason R]",
		Short: "after a fix: enable the endpoint, close its circuit and attempt its waiting deliveries now",
		Args:  oneArg("endpoint ID"),
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, args []string) error {
			rec, err := c.RecoverEndpoint(ctx, args[0], reason)
			return answer(e, rec, err, printRecovered)
		}),
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why, recorded with who recovered it")
	return cmd
}

func printRecovered(e *clientEnv, r *apiclient.Recovered) {
	was := fmt.Sprintf("circuit was %s with %s", r.PreviousCircuit, count(r.PreviousConsecutiveFailures, "consecutive failure", "consecutive failures"))
	if r.Reenabled {
		was += "; the endpoint was disabled and is enabled again"
	}
	fmt.Fprintf(e.stdout, "Recovered endpoint %s (%s).\n", r.EndpointID, was)
	waiting := count(r.Woken, "waiting delivery", "waiting deliveries")
	switch {
	case r.Woken == 0:
		fmt.Fprintln(e.stdout, "No delivery was waiting on it.")
	case r.Paced:
		fmt.Fprintf(e.stdout, "%s: woken in the background, oldest first, as fast as they drain.\n", waiting)
	case r.Spread == "" || r.Spread == "0s":
		fmt.Fprintf(e.stdout, "%s: attempted now.\n", waiting)
	default:
		fmt.Fprintf(e.stdout, "%s: attempted within %s, spread so the receiver is not hit all at once.\n", waiting, r.Spread)
	}
}
