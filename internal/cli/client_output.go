package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookd/hookd/apiclient"
	"github.com/hookd/hookd/apiclient/wire"
)

// printJSON prints an API answer indented, otherwise exactly as sent.
func printJSON(w io.Writer, raw json.RawMessage) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(raw), "", "  "); err != nil {
		buf.Reset()
		buf.Write(bytes.TrimSpace(raw))
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}

// apiAnswer is an API answer that keeps the JSON the API sent.
type apiAnswer interface{ JSON() json.RawMessage }

// answer prints v, the API's answer to a call that returned err: the JSON
// as sent with --json, else through human.
func answer[T apiAnswer](e *clientEnv, v T, err error, human func(*clientEnv, T)) error {
	switch {
	case err != nil:
		return err
	case e.json:
		return printJSON(e.stdout, v.JSON())
	}
	human(e, v)
	return nil
}

// showOne is a command that fetches one thing by ID and prints it; use
// names the ID in the usage, what in errors.
func showOne[T apiAnswer](e *clientEnv, use, short, what string, get func(*apiclient.Client, context.Context, string) (T, error), human func(*clientEnv, T)) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  oneArg(what),
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, args []string) error {
			v, err := get(c, ctx, args[0])
			return answer(e, v, err, human)
		}),
	}
}

// deleteOne is a command that deletes one thing by ID; what names the ID
// in errors and done says what was deleted ("Deleted endpoint %s.").
// --json prints {"id":...,"deleted":true}.
func deleteOne(e *clientEnv, short, what, done string, del func(*apiclient.Client, context.Context, string) error) *cobra.Command {
	return &cobra.Command{
		Use:   "delete ID",
		Short: short,
		Args:  oneArg(what),
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, args []string) error {
			if err := del(c, ctx, args[0]); err != nil {
				return err
			}
			if e.json {
				return printJSON(e.stdout, fmt.Appendf(nil, `{"id":%q,"deleted":true}`, args[0]))
			}
			_, err := fmt.Fprintf(e.stdout, done+"\n", args[0])
			return err
		}),
	}
}

// table writes tab-separated rows as aligned columns; Flush prints them.
func table(w io.Writer, header ...string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	if len(header) > 0 {
		fmt.Fprintln(tw, strings.Join(header, "\t"))
	}
	return tw
}

// row writes one table row.
func row(tw *tabwriter.Writer, cells ...any) {
	s := make([]string, len(cells))
	for i, c := range cells {
		s[i] = fmt.Sprint(c)
	}
	fmt.Fprintln(tw, strings.Join(s, "\t"))
}

// fields prints label/value pairs aligned, skipping empty values.
func fields(w io.Writer, pairs ...string) {
	tw := table(w)
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			fmt.Fprintf(tw, "%s\t%s\n", pairs[i], pairs[i+1])
		}
	}
	tw.Flush()
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// ago is how long before now t was, rounded to one unit: "42s", "3h", "2d".
func ago(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return roughly(now.Sub(t))
}

func roughly(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// result says how an attempt ended: the HTTP status or the network error.
func result(status int, class, msg string) string {
	out := class
	if status > 0 {
		out = fmt.Sprintf("HTTP %d", status)
	}
	if msg != "" && status == 0 {
		out = strings.TrimPrefix(out+": "+msg, ": ")
	}
	const max = 72
	if len(out) > max {
		out = out[:max-1] + "…"
	}
	return orDash(out)
}

// printTimeline prints a delivery's attempts as a table; a timeline of
// several runs gets a RUN column and a row for each redrive.
func printTimeline(w io.Writer, timeline []apiclient.TimelineEntry) {
	if len(timeline) == 0 {
		fmt.Fprintln(w, "No attempts yet.")
		return
	}
	runs := slices.ContainsFunc(timeline, func(a apiclient.TimelineEntry) bool { return a.Run > 1 })
	header := []string{"#", "STARTED", "DURATION", "RESULT", "OUTCOME", "NEXT"}
	if runs {
		header = append([]string{"RUN"}, header...)
	}
	tw := table(w, header...)
	for _, a := range timeline {
		var cells []any
		if r := a.Redrive; a.Kind == wire.TimelineEntryKindRedrive {
			cells = []any{"-", stamp(r.At), "-", result(0, "redriven by "+r.By, r.Reason), "redrive", "-"}
		} else {
			next := "-"
			if a.NextDelay != "" {
				next = string(a.NextDelay)
				if a.DelayReason != "" {
					next += " (" + a.DelayReason + ")"
				}
			}
			cells = []any{a.Number, stamp(a.Start), time.Duration(wire.Deref(a.DurationMS) * float64(time.Millisecond)).Round(time.Millisecond), result(a.Status, a.ErrorClass, a.Error), orDash(string(a.Outcome)), next}
		}
		if runs {
			cells = append([]any{a.Run}, cells...)
		}
		row(tw, cells...)
	}
	tw.Flush()
}

// attemptEntries is a dead letter's attempts as the entries of a
// delivery's timeline, all of its one run.
func attemptEntries(attempts []apiclient.Attempt) []apiclient.TimelineEntry {
	out := make([]apiclient.TimelineEntry, len(attempts))
	for i, a := range attempts {
		out[i] = apiclient.TimelineEntry{
			Kind: wire.TimelineEntryKindAttempt, Run: 1, Number: a.Number, Start: a.Start, DurationMS: &a.DurationMS,
			Status: a.Status, ErrorClass: a.ErrorClass, Error: a.Error, Response: a.Response,
			Outcome: wire.TimelineEntryOutcome(a.Outcome), NextDelay: a.NextDelay, DelayReason: a.DelayReason, NextAttemptAt: a.NextAttemptAt,
		}
	}
	return out
}

// printPages prints the pages fetch returns (every page with --all): the
// API's JSON with --json, else one table of the rows, or none when there
// are no rows; then how to get the next page.
func (e *clientEnv) printPages(pf pageFlags, header []string, none string,
	fetch func(apiclient.Page) (json.RawMessage, [][]any, string, error)) error {
	tw, n := table(e.stdout, header...), 0
	next, err := eachPage(pf.Page, pf.all, func(p apiclient.Page) (string, error) {
		raw, rows, next, err := fetch(p)
		switch {
		case err != nil:
			return "", err
		case e.json:
			return next, printJSON(e.stdout, raw)
		}
		for _, cells := range rows {
			row(tw, cells...)
		}
		n += len(rows)
		return next, nil
	})
	switch {
	case err != nil:
		return err
	case e.json:
	case n == 0:
		fmt.Fprintln(e.stdout, none)
	default:
		tw.Flush()
	}
	e.moreHint(next)
	return nil
}

// eachPage fetches pages from p.Cursor on, every one when all is set, and
// returns the cursor of the first page it did not fetch.
func eachPage(p apiclient.Page, all bool, fetch func(apiclient.Page) (string, error)) (string, error) {
	for {
		next, err := fetch(p)
		if err != nil || next == "" || !all {
			return next, err
		}
		p.Cursor = next
	}
}

// moreHint tells on stderr how to read past the last page printed.
func (e *clientEnv) moreHint(next string) {
	if next != "" {
		fmt.Fprintf(e.stderr, "More results: add --cursor %s, or --all.\n", next)
	}
}

// count says "1 thing" or "n things".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
