package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hookd/hookd/apiclient"
)

// filterFlags select dead letters, for dlq list and bulk redrive.
type filterFlags struct {
	tenant, endpoint, eventType, since, until string
	reasons                                   stringList
}

// register adds the filter flags; reasonFlag names the reason filter
// ("reason" on list; on redrive --reason is the operator's reason).
func (ff *filterFlags) register(fs *pflag.FlagSet, reasonFlag string) {
	tenantFlag(fs, &ff.tenant, "only this tenant's dead letters (required with a tenant token's bulk redrive)")
	fs.StringVar(&ff.endpoint, "endpoint", "", "only this endpoint ID")
	fs.StringVar(&ff.eventType, "event-type", "", "only this event type")
	fs.Var(&ff.reasons, reasonFlag, "only this reason: failed or exhausted (repeatable or comma-separated)")
	fs.StringVar(&ff.since, "since", "", "dead since: an RFC 3339 time or a duration ago such as 1h or 2d")
	fs.StringVar(&ff.until, "until", "", "dead until: an RFC 3339 time or a duration ago")
}

func (ff *filterFlags) filter(now time.Time) (apiclient.DeadLetterFilter, error) {
	f := apiclient.DeadLetterFilter{TenantID: ff.tenant, EndpointID: ff.endpoint, EventType: ff.eventType}
	if len(ff.reasons) > 0 {
		f.Reasons = listValues(ff.reasons)
	}
	var err error
	if f.Since, err = parseWhen("since", ff.since, now); err != nil {
		return f, err
	}
	f.Until, err = parseWhen("until", ff.until, now)
	return f, err
}

// parseWhen reads a time given as RFC 3339 or as a duration ago ("90m",
// "2d"); empty is the zero time.
func parseWhen(flagName, v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(v)
	if days, ok := strings.CutSuffix(v, "d"); ok {
		if n, convErr := strconv.Atoi(days); convErr == nil {
			d, err = time.Duration(n)*24*time.Hour, nil
		}
	}
	if err != nil || d < 0 {
		return time.Time{}, usagef("--%s %q: want an RFC 3339 time or a duration ago such as 1h or 2d", flagName, v)
	}
	return now.Add(-d), nil
}

// dlqCommand is `hookd dlq`.
func dlqCommand(e *clientEnv) *cobra.Command {
	return e.clientGroup("dlq", "list, inspect and redrive dead letters",
		dlqList(e),
		showOne(e, "show DELIVERY_ID", "show a dead letter: its timeline, the receiver's last response, the payload", "dead letter (delivery) ID", (*apiclient.Client).GetDeadLetter, printDeadLetter),
		dlqSummary(e), dlqRedrive(e), dlqJob(e))
}

func dlqList(e *clientEnv) *cobra.Command {
	var (
		ff filterFlags
		pf pageFlags
	)
	cmd := &cobra.Command{
		Use:   "list [--tenant T] [--endpoint ID] [--event-type T] [--reason R] [--since T] [--until T] [--limit N] [--all]",
		Short: "list dead letters with how each died",
		Args:  noArgs,
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, _ []string) error {
			f, err := ff.filter(e.now())
			if err != nil {
				return err
			}
			return e.printPages(pf, []string{"DELIVERY", "EVENT TYPE", "ENDPOINT", "REASON", "LAST RESULT", "DEAD AT", "AGE"}, "No dead letters match.",
				func(p apiclient.Page) (json.RawMessage, [][]any, string, error) {
					res, err := c.ListDeadLetters(ctx, f, p)
					if err != nil {
						return nil, nil, "", err
					}
					var rows [][]any
					for _, d := range res.Data {
						rows = append(rows, []any{d.ID, d.EventType, d.EndpointID, d.Reason, result(d.LastStatus, d.LastError, ""), stamp(d.DeadAt), ago(e.now(), d.DeadAt)})
					}
					return res.JSON(), rows, res.NextCursor, nil
				})
		}),
	}
	ff.register(cmd.Flags(), "reason")
	pf.register(cmd.Flags(), "dead letters")
	return cmd
}

func printDeadLetter(e *clientEnv, d *apiclient.DeadLetter) {
	fields(e.stdout,
		"Delivery", d.ID, "Event", d.EventID+" ("+d.EventType+")", "Endpoint", d.EndpointID,
		"Reason", string(d.Reason), "State", string(d.State), "Dead at", stamp(d.DeadAt)+" ("+ago(e.now(), d.DeadAt)+" ago)",
		"Attempts", fmt.Sprint(d.Attempts), "Last result", result(d.LastStatus, d.LastError, ""),
		"First attempt", stamp(d.FirstAttemptAt), "Last attempt", stamp(d.LastAttemptAt))
	fmt.Fprintln(e.stdout)
	printTimeline(e.stdout, attemptEntries(d.Timeline))
	if n := len(d.Timeline); n > 0 && d.Timeline[n-1].Response != "" {
		last := d.Timeline[n-1]
		fmt.Fprintf(e.stdout, "\nThe receiver's response to attempt %d (%s):\n", last.Number, result(last.Status, last.ErrorClass, ""))
		fmt.Fprintln(e.stdout, strings.TrimRight(last.Response, "\n"))
	}
	fmt.Fprintln(e.stdout, "\nPayload:")
	printJSON(e.stdout, d.Payload)
}

func dlqSummary(e *clientEnv) *cobra.Command {
	var tenant string
	cmd := &cobra.Command{
		Use:   "summary [--tenant T]",
		Short: "count dead letters per endpoint and reason",
		Args:  noArgs,
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, _ []string) error {
			summary := c.DeadLetterSummary
			if tenant != "" {
				summary = func(ctx context.Context) (*apiclient.DeadLetterSummary, error) {
					return c.TenantDeadLetterSummary(ctx, tenant)
				}
			}
			s, err := summary(ctx)
			return answer(e, s, err, printSummary)
		}),
	}
	tenantFlag(cmd.Flags(), &tenant, "only this tenant's dead letters")
	return cmd
}

func printSummary(e *clientEnv, s *apiclient.DeadLetterSummary) {
	if s.Total == 0 {
		fmt.Fprintln(e.stdout, "No dead letters.")
		return
	}
	oldest := roughly(time.Duration(s.OldestAgeSeconds * float64(time.Second)))
	fmt.Fprintf(e.stdout, "%s, the oldest %s old.\n\n", count(int(s.Total), "dead letter", "dead letters"), oldest)
	sort.Slice(s.Groups, func(i, j int) bool {
		a, b := s.Groups[i], s.Groups[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.EndpointID+string(a.Reason) < b.EndpointID+string(b.Reason)
	})
	tw := table(e.stdout, "ENDPOINT", "REASON", "COUNT")
	for _, g := range s.Groups {
		row(tw, g.EndpointID, g.Reason, g.Count)
	}
	tw.Flush()
}
