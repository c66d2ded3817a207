package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hookd/hookd/apiclient"
)

// eventsCommand is `hookd events`.
func eventsCommand(e *clientEnv) *cobra.Command {
	get := showOne(e, "get EVENT_ID", "show a recorded event: its deliveries' status and its payload", "event ID", (*apiclient.Client).GetEvent, printEvent)
	get.Aliases = []string{"show"}
	return e.clientGroup("events", "list recorded events, show one with its deliveries", eventsList(e), get)
}

func eventsList(e *clientEnv) *cobra.Command {
	var (
		f            apiclient.EventFilter
		since, until string
		pf           pageFlags
	)
	cmd := &cobra.Command{
		Use:   "list [--type T] [--endpoint ID] [--tenant T] [--since T] [--until T] [--limit N] [--all]",
		Short: "list recorded events, newest first",
		Args:  noArgs,
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, _ []string) error {
			var err error
			if f.Since, err = parseWhen("since", since, e.now()); err != nil {
				return err
			}
			if f.Until, err = parseWhen("until", until, e.now()); err != nil {
				return err
			}
			// The ID last: hookd's own events' IDs are long
			// (type:reason:endpoint:time), and a column is as wide as
			// its widest cell.
			return e.printPages(pf, []string{"TYPE", "ACCEPTED AT", "AGE", "DELIVERIES", "EVENT"}, "No events match.",
				func(p apiclient.Page) (json.RawMessage, [][]any, string, error) {
					res, err := c.ListEvents(ctx, f, p)
					if err != nil {
						return nil, nil, "", err
					}
					var rows [][]any
					for _, ev := range res.Data {
						rows = append(rows, []any{ev.Type, stamp(ev.AcceptedAt), ago(e.now(), ev.AcceptedAt), len(ev.Deliveries), ev.EventID})
					}
					return res.JSON(), rows, res.NextCursor, nil
				})
		}),
	}
	fs := cmd.Flags()
	fs.StringVar(&f.Type, "type", "", `only this event type, or a prefix wildcard such as "order.*"`)
	fs.StringVar(&f.EndpointID, "endpoint", "", "only events that fanned out to this endpoint ID")
	tenantFlag(fs, &f.TenantID, "only this tenant's events")
	fs.StringVar(&since, "since", "", "accepted since: an RFC 3339 time or a duration ago such as 1h or 2d")
	fs.StringVar(&until, "until", "", "accepted until: an RFC 3339 time or a duration ago")
	pf.register(fs, "events")
	return cmd
}

func printEvent(e *clientEnv, ev *apiclient.EventRecord) {
	fields(e.stdout, "Event", ev.EventID, "Type", ev.Type,
		"Accepted", stamp(ev.AcceptedAt)+" ("+ago(e.now(), ev.AcceptedAt)+" ago)")
	fmt.Fprintln(e.stdout)
	if len(ev.Deliveries) == 0 {
		fmt.Fprintln(e.stdout, "No endpoint was subscribed: no deliveries.")
	} else {
		tw := table(e.stdout, "DELIVERY", "ENDPOINT", "STATUS")
		for _, d := range ev.Deliveries {
			row(tw, d.ID, d.EndpointID, strings.ReplaceAll(orDash(d.Status), "_", " "))
		}
		tw.Flush()
	}
	fmt.Fprintln(e.stdout, "\nPayload:")
	printJSON(e.stdout, ev.Payload)
}
