package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/hookd/hookd/apiclient"
)

func eventsList(ctx context.Context, e *clientEnv, name string, args []string) error {
	cf := e.newClientFlags(name, "[--type T] [--endpoint ID] [--tenant T] [--since T] [--until T] [--limit N] [--all] [flags]").withJSON()
	var f apiclient.EventFilter
	var since, until string
	cf.StringVar(&f.Type, "type", "", `only this event type, or a prefix wildcard such as "order.*"`)
	cf.StringVar(&f.EndpointID, "endpoint", "", "only events that fanned out to this endpoint ID")
	cf.tenantFlag(&f.TenantID, "only this tenant's events")
	cf.StringVar(&since, "since", "", "accepted since: an RFC 3339 time or a duration ago such as 1h or 2d")
	cf.StringVar(&until, "until", "", "accepted until: an RFC 3339 time or a duration ago")
	var pf pageFlags
	pf.register(cf, "events")
	c, err := cf.parseClient(args)
	if err != nil {
		return err
	}
	if f.Since, err = parseWhen("since", since, e.now()); err != nil {
		return err
	}
	if f.Until, err = parseWhen("until", until, e.now()); err != nil {
		return err
	}
	tw, n := table(e.stdout, "EVENT", "TYPE", "ACCEPTED AT", "AGE", "DELIVERIES"), 0
	next, err := eachPage(pf.Page, pf.all, func(p apiclient.Page) (string, error) {
		res, err := c.ListEvents(ctx, f, p)
		if err != nil {
			return "", err
		}
		if cf.json {
			return res.NextCursor, printJSON(e.stdout, res.JSON())
		}
		for _, ev := range res.Data {
			row(tw, ev.EventID, ev.Type, stamp(ev.AcceptedAt), ago(e.now(), ev.AcceptedAt), len(ev.Deliveries))
		}
		n += len(res.Data)
		return res.NextCursor, nil
	})
	switch {
	case err != nil:
		return err
	case cf.json:
	case n == 0:
		fmt.Fprintln(e.stdout, "No events match.")
	default:
		tw.Flush()
	}
	e.moreHint(next)
	return nil
}

var eventsGet = showOne("EVENT_ID", "event ID", (*apiclient.Client).GetEvent, printEvent)

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
