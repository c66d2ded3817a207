package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hookd/hookd/apiclient"
)

// deliveriesCommand is `hookd deliveries`.
func deliveriesCommand(e *clientEnv) *cobra.Command {
	get := showOne(e, "get ID", "show a delivery: its status and the timeline of every run", "delivery ID", (*apiclient.Client).GetDelivery, printDelivery)
	get.Aliases = []string{"show"}
	return e.clientGroup("deliveries", "list deliveries or show one", deliveriesList(e), get)
}

func deliveriesList(e *clientEnv) *cobra.Command {
	var (
		f  apiclient.DeliveryFilter
		pf pageFlags
	)
	cmd := &cobra.Command{
		Use:   "list [--tenant T] [--endpoint ID] [--event ID] [--status S] [--limit N] [--all]",
		Short: "list deliveries, newest first",
		Args:  noArgs,
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, _ []string) error {
			return e.printPages(pf, []string{"DELIVERY", "EVENT TYPE", "ENDPOINT", "TENANT", "STATUS", "ATTEMPTS", "LAST", "CREATED"}, "No deliveries match.",
				func(p apiclient.Page) (json.RawMessage, [][]any, string, error) {
					res, err := c.ListDeliveries(ctx, f, p)
					if err != nil {
						return nil, nil, "", err
					}
					var rows [][]any
					for _, d := range res.Data {
						last := "-"
						if d.LastStatus != 0 {
							last = fmt.Sprint(d.LastStatus)
						}
						rows = append(rows, []any{d.ID, d.EventType, d.EndpointID, orDash(d.TenantID), d.Status, d.Attempts, last, stamp(d.CreatedAt)})
					}
					return res.JSON(), rows, res.NextCursor, nil
				})
		}),
	}
	fs := cmd.Flags()
	tenantFlag(fs, &f.TenantID, "only this tenant's deliveries")
	fs.StringVar(&f.EndpointID, "endpoint", "", "only deliveries to this endpoint ID")
	fs.StringVar(&f.EventID, "event", "", "only deliveries of this event ID")
	fs.StringVar(&f.Status, "status", "", "only pending, delivered, failed or exhausted deliveries")
	pf.register(fs, "deliveries")
	return cmd
}

func printDelivery(e *clientEnv, d *apiclient.Delivery) {
	var next, redrive, last string
	if !d.NextAttemptAt.IsZero() {
		next = fmt.Sprintf("%s (in %s)", stamp(d.NextAttemptAt), roughly(d.NextAttemptAt.Sub(e.now())))
		if d.WaitReason != "" {
			next += ": " + d.WaitReason
		}
	}
	if r := d.Redrive; !r.At.IsZero() {
		redrive = fmt.Sprintf("%s by %s: %s", stamp(r.At), r.By, orDash(r.Reason))
	}
	if d.Attempts > 0 {
		last = result(d.LastStatus, d.LastError, "")
	}
	attempts := fmt.Sprint(d.Attempts)
	if d.Runs > 1 {
		attempts += fmt.Sprintf(" over %d runs (%s)", d.Runs, count(d.Runs-1, "redrive", "redrives"))
	}
	fields(e.stdout,
		"Delivery", d.ID, "Event", d.EventID+" ("+d.EventType+")", "Endpoint", d.EndpointID, "Tenant", d.TenantID,
		"Status", string(d.Status), "Attempts", attempts, "Last result", last,
		"Next attempt", next, "Created", stamp(d.CreatedAt), "Redriven", redrive)
	fmt.Fprintln(e.stdout)
	printTimeline(e.stdout, d.Timeline)
}
