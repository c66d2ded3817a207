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
	return e.clientGroup("events", "list recorded events, show one with its deliveries, expunge one", eventsList(e), get, eventsExpunge(e))
}

func eventsExpunge(e *clientEnv) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "expunge EVENT_ID --reason R",
		Short: "erase an event's payload everywhere: destroy it and its key, end its deliveries, remove its dead letters",
		Args:  oneArg("event ID"),
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, args []string) error {
			if reason == "" {
				return usagef("--reason is required: why the event is expunged")
			}
			ev, err := c.ExpungeEvent(ctx, args[0], reason)
			return answer(e, ev, err, printEvent)
		}),
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (required), recorded with who expunged it")
	return cmd
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
	expunged := ""
	if !ev.ExpungedAt.IsZero() {
		expunged = stamp(ev.ExpungedAt) + " by " + ev.ExpungedBy + ": " + ev.ExpungeReason
	}
	fields(e.stdout, "Event", ev.EventID, "Type", ev.Type,
		"Accepted", stamp(ev.AcceptedAt)+" ("+ago(e.now(), ev.AcceptedAt)+" ago)", "Expunged", expunged)
	fmt.Fprintln(e.stdout)
	if len(ev.Deliveries) == 0 {
		fmt.Fprintln(e.stdout, "No endpoint was subscribed: no deliveries.")
	} else {
		tw := table(e.stdout, "DELIVERY", "ENDPOINT", "STATUS")
		for _, d := range ev.Deliveries {
			row(tw, d.ID, d.EndpointID, strings.ReplaceAll(orDash(string(d.Status)), "_", " "))
		}
		tw.Flush()
	}
	fmt.Fprintln(e.stdout, "\nPayload:")
	switch {
	case ev.ExpungedAt.IsZero():
		printJSON(e.stdout, ev.Payload)
	case ev.TemporalCopy == "namespace_key_only":
		fmt.Fprintln(e.stdout, "expunged. The event had no data key: its copy in Temporal's history is sealed only with the namespace's payload key.")
	default:
		fmt.Fprintln(e.stdout, "expunged. Its key is destroyed: no copy, in the store or in Temporal's history, can be opened.")
	}
}
