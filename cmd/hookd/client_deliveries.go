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
	}
	if r := d.Redrive; r != nil {
		redrive = fmt.Sprintf("%s by %s: %s", stamp(r.At), r.By, orDash(r.Reason))
	}
	if d.Attempts > 0 {
		last = result(d.LastStatus, d.LastError, "")
	}
	fields(e.stdout,
		"Delivery", d.ID, "Event", d.EventID+" ("+d.EventType+")", "Endpoint", d.EndpointID,
		"Status", d.Status, "Attempts", fmt.Sprint(d.Attempts), "Last result", last,
		"Next attempt", next, "Created", stamp(d.CreatedAt), "Redriven", redrive)
	fmt.Fprintln(e.stdout)
	printTimeline(e.stdout, d.Timeline)
}
