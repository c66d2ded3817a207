package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookd/hookd/apiclient"
)

// bulkOnly are the dlq redrive flags that only a bulk redrive takes.
var bulkOnly = []string{"endpoint", "event-type", "reason-filter", "since", "until", "rate", "yes", "all-dead-letters"}

func dlqRedrive(e *clientEnv) *cobra.Command {
	var (
		ff         filterFlags
		b          apiclient.BulkRedrive
		yes, every bool
	)
	cmd := &cobra.Command{
		Use:   "redrive DELIVERY_ID [--reason R] | --endpoint ID [--since T] [--until T] [--reason-filter R] [--rate 10] [--yes]",
		Short: "redrive one dead letter, or in bulk every one a filter matches",
		Long: `Redrive one dead letter by its delivery ID, or every dead letter a filter
matches as one job that Temporal throttles and carries through a crash. A bulk
redrive asks for confirmation on a terminal (--yes skips it) and follows the
job with a progress bar; with --json it prints the job it started and returns.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("want at most one dead letter ID, got %d", len(args))
			}
			return nil
		},
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				for _, f := range bulkOnly {
					if cmd.Flags().Changed(f) {
						return usagef("--%s is for a bulk redrive; give a dead letter ID or filter flags, not both", f)
					}
				}
				return e.redriveOne(ctx, c, args[0], b.Reason)
			}
			var err error
			if b.Filter, err = ff.filter(e.now()); err != nil {
				return err
			}
			if b.Filter.IsZero() && !every {
				return usagef("refusing to redrive every dead letter: give --endpoint, --event-type, --reason-filter, --since or --until, or --all-dead-letters")
			}
			b.All = every && b.Filter.IsZero()
			if !yes {
				if err := e.confirm(fmt.Sprintf("Redrive %s at %g/s?", describeFilter(b.Filter), b.Rate)); err != nil {
					return err
				}
			}
			return e.redriveMany(ctx, c, b)
		}),
	}
	fs := cmd.Flags()
	ff.register(fs, "reason-filter")
	fs.StringVar(&b.Reason, "reason", "", "why, recorded with the redrive")
	fs.Float64Var(&b.Rate, "rate", 10, "bulk: redrives per second (0.1 to 1000; Temporal caps it at its batcher rate, 50 by default)")
	fs.BoolVar(&yes, "yes", false, "bulk: start without asking")
	fs.BoolVar(&every, "all-dead-letters", false, "bulk: redrive every dead letter (no filter)")
	return cmd
}

func (e *clientEnv) redriveOne(ctx context.Context, c *apiclient.Client, id, reason string) error {
	res, err := c.RedriveDeadLetter(ctx, id, reason)
	return answer(e, res, err, func(e *clientEnv, res *apiclient.RedriveRequested) {
		fmt.Fprintf(e.stdout, "Redrive requested for %s: a new run with the same delivery ID; follow it with `hookd deliveries get %s`.\n", res.DeliveryID, res.DeliveryID)
		printHeld(e, string(res.HeldBy), res.HeldUntil)
	})
}

// printHeld says that a redrive's deliveries will wait on an open
// circuit, and how to send them now.
func printHeld(e *clientEnv, heldBy string, heldUntil time.Time) {
	if heldBy == "" {
		return
	}
	until := "its cooldown ends"
	if !heldUntil.IsZero() {
		until = heldUntil.Local().Format(time.RFC3339)
	}
	fmt.Fprintf(e.stdout, "The endpoint's circuit is open: the redriven deliveries wait until %s. To send them now: hookd endpoints recover ENDPOINT_ID\n", until)
}

// confirm asks on the terminal, and refuses without one.
func (e *clientEnv) confirm(question string) error {
	if !e.interactive {
		return usagef("refusing to start a bulk redrive without confirmation: add --yes")
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
	switch {
	case err != nil:
		return err
	case e.json:
		return printJSON(e.stdout, started.JSON())
	case started.Matched == 0:
		fmt.Fprintln(e.stdout, "No dead letters match: nothing to redrive.")
		return nil
	}
	fmt.Fprintf(e.stdout, "Redrive job %s: %s at %g/s.\n", started.JobID, count(int(started.Matched), "dead letter", "dead letters"), started.Rate)
	printHeld(e, string(started.HeldBy), started.HeldUntil)
	return e.followJob(ctx, c, started.JobID, started.Matched)
}

func dlqJob(e *clientEnv) *cobra.Command {
	return &cobra.Command{
		Use:   "job JOB_ID",
		Short: "follow a bulk redrive job to its end (with --json: print its progress now)",
		Args:  oneArg("redrive job ID"),
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, args []string) error {
			if e.json {
				job, err := c.RedriveJob(ctx, args[0])
				return answer(e, job, err, nil)
			}
			return e.followJob(ctx, c, args[0], 0)
		}),
	}
}
