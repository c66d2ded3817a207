package main

import (
	"fmt"

	"github.com/hookd/hookd/apiclient"
)

var deliveriesGet = showOne("ID", "delivery ID", (*apiclient.Client).GetDelivery, printDelivery)

func printDelivery(e *clientEnv, d *apiclient.Delivery) {
	var next, redrive, last string
	if d.NextAttemptAt != nil {
		next = fmt.Sprintf("%s (in %s)", stamp(*d.NextAttemptAt), roughly(d.NextAttemptAt.Sub(e.now())))
		if d.WaitReason != "" {
			next += ": " + d.WaitReason
		}
	}
	if r := d.Redrive; r != nil {
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
		"Delivery", d.ID, "Event", d.EventID+" ("+d.EventType+")", "Endpoint", d.EndpointID,
		"Status", d.Status, "Attempts", attempts, "Last result", last,
		"Next attempt", next, "Created", stamp(d.CreatedAt), "Redriven", redrive)
	fmt.Fprintln(e.stdout)
	printTimeline(e.stdout, d.Timeline)
}
