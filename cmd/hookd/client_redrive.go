package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hookd/hookd/apiclient"
)

// bulkOnly are the dlq redrive flags that only a bulk redrive takes.
var bulkOnly = []string{"endpoint", "event-type", "reason-filter", "since", "until", "rate", "yes", "all-dead-letters"}

func dlqRedrive(ctx context.Context, e *clientEnv, name string, args []string) error {
	cf := e.newClientFlags(name, "DELIVERY_ID [--reason R]\n   or: hookd dlq redrive --endpoint ID [--since T] [--until T] [--reason-filter R] [--rate 10] [--yes]").withJSON()
	var ff filterFlags
	ff.register(cf, "reason-filter")
	var b apiclient.BulkRedrive
	var yes, everything bool
	cf.StringVar(&b.Reason, "reason", "", "why, recorded with the redrive")
	cf.Float64Var(&b.Rate, "rate", 10, "bulk: redrives per second (0.1 to 1000; Temporal caps it at its batcher rate, 50 by default)")
	cf.BoolVar(&yes, "yes", false, "bulk: start without asking")
	cf.BoolVar(&everything, "all-dead-letters", false, "bulk: redrive every dead letter (no filter)")
	pos, err := cf.positional(args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return fmt.Errorf("want at most one dead letter ID, got %d", len(pos))
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	if len(pos) == 1 {
		for _, f := range bulkOnly {
			if cf.isSet(f) {
				return fmt.Errorf("--%s is for a bulk redrive; give a dead letter ID or filter flags, not both", f)
			}
		}
		return e.redriveOne(ctx, cf, c, pos[0], b.Reason)
	}
	if b.Filter, err = ff.filter(e.now()); err != nil {
		return err
	}
	if b.Filter.IsZero() && !everything {
		return errors.New("refusing to redrive every dead letter: give --endpoint, --event-type, --reason-filter, --since or --until, or --all-dead-letters")
	}
	if !yes {
		if err := e.confirm(fmt.Sprintf("Redrive %s at %g/s?", describeFilter(b.Filter), b.Rate)); err != nil {
			return err
		}
	}
	return e.redriveMany(ctx, c, b)
}

func (e *clientEnv) redriveOne(ctx context.Context, cf *clientFlags, c *apiclient.Client, id, reason string) error {
	res, err := c.RedriveDeadLetter(ctx, id, reason)
	return answer(e, cf, res, err, func(e *clientEnv, res *apiclient.RedriveRequested) {
		fmt.Fprintf(e.stdout, "Redrive requested for %s: a new run with the same delivery ID; follow it with `hookd deliveries get %s`.\n", res.DeliveryID, res.DeliveryID)
	})
}

// confirm asks on the terminal, and refuses without one.
func (e *clientEnv) confirm(question string) error {
	if !e.interactive {
		return errors.New("refusing to start a bulk redrive without confirmation: add --yes")
	}
	fmt.Fprintf(e.stderr, "%s [y/N] ", question)
	answer, _ := bufio.NewReader(e.stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return errors.New("cancelled")
	}
	return nil
}

func describeFilter(f apiclient.DeadLetterFilter) string {
	var parts []string
	for _, p := range [][2]string{
		{"endpoint", f.EndpointID}, {"event type", f.EventType}, {"reason", strings.Join(f.Reasons, "|")},
		{"since", stamp(f.Since)}, {"until", stamp(f.Until)},
	} {
		if p[1] != "" {
			parts = append(parts, p[0]+" "+p[1])
		}
	}
	if len(parts) == 0 {
		return "every dead letter"
	}
	return "the dead letters with " + strings.Join(parts, ", ")
}

func (e *clientEnv) redriveMany(ctx context.Context, c *apiclient.Client, b apiclient.BulkRedrive) error {
	started, err := c.StartRedrive(ctx, b)
	if err != nil {
		return err
	}
	if started.Matched == 0 {
		fmt.Fprintln(e.stdout, "No dead letters match: nothing to redrive.")
		return nil
	}
	fmt.Fprintf(e.stdout, "Redrive job %s: %s at %g/s.\n", started.JobID, count(int(started.Matched), "dead letter", "dead letters"), started.Rate)
	return e.followJob(ctx, c, started.JobID, started.Matched)
}

func dlqJob(ctx context.Context, e *clientEnv, name string, args []string) error {
	job, c, err := e.newClientFlags(name, "JOB_ID [flags]").idClient(args, "redrive job ID")
	if err != nil {
		return err
	}
	return e.followJob(ctx, c, job, 0)
}
