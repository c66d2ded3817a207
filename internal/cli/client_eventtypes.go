package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hookd/hookd/apiclient"
)

// eventTypesCommand is `hookd event-types`.
func eventTypesCommand(e *clientEnv) *cobra.Command {
	return e.clientGroup("event-types", "manage the event-type catalog: types, their JSON Schemas and examples",
		eventTypesPut(e), showOne(e, "get NAME", "show an event type with its schema and examples", "event type", (*apiclient.Client).GetEventType, printEventType),
		eventTypesList(e),
		deleteOne(e, "delete an event type from the catalog", "event type", "Deleted event type %s.", (*apiclient.Client).DeleteEventType))
}

func eventTypesPut(e *clientEnv) *cobra.Command {
	var (
		in       apiclient.EventTypeInput
		schema   string
		examples stringList
	)
	cmd := &cobra.Command{
		Use:   "put NAME [--description D] [--schema '{...}'|@schema.json] [--example '{...}'|@file ...] [--deprecated]",
		Short: "create an event type, or replace it: its schema must be valid and its examples must match it",
		Args:  oneArg("event type"),
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, args []string) error {
			var err error
			if schema != "" {
				if in.Schema, err = readObject("schema", schema); err != nil {
					return err
				}
			}
			for _, ex := range examples {
				raw, err := readObject("example", ex)
				if err != nil {
					return err
				}
				in.Examples = append(in.Examples, raw)
			}
			t, created, err := c.PutEventType(ctx, args[0], in)
			return answer(e, t, err, func(e *clientEnv, t *apiclient.EventType) {
				fmt.Fprintf(e.stdout, "%s event type %s.\n\n", createdOrUpdated(created), t.Name)
				printEventType(e, t)
			})
		}),
	}
	cmd.Flags().StringVar(&in.Description, "description", "", "what the event means, for the platform's customers")
	cmd.Flags().StringVar(&schema, "schema", "", "JSON Schema (draft 2020-12) its payloads must match, inline or @file; none when absent")
	cmd.Flags().Var(&examples, "example", "an example payload, inline or @file (repeatable); each must match the schema")
	cmd.Flags().BoolVar(&in.Deprecated, "deprecated", false, "mark the type deprecated (its events are still accepted)")
	return cmd
}

func printEventType(e *clientEnv, t *apiclient.EventType) {
	fields(e.stdout, "Name", t.Name, "Description", t.Description, "Deprecated", fmt.Sprint(t.Deprecated),
		"Created", stamp(t.CreatedAt), "Updated", stamp(t.UpdatedAt))
	if len(t.Schema) > 0 {
		fmt.Fprintf(e.stdout, "\nSchema:\n%s\n", indented(t.Schema))
	}
	for i, ex := range t.Examples {
		fmt.Fprintf(e.stdout, "\nExample %d:\n%s\n", i+1, indented(ex))
	}
}

// indented is JSON indented by two spaces, or as it is if it is not JSON.
func indented(raw json.RawMessage) string {
	var b strings.Builder
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func eventTypesList(e *clientEnv) *cobra.Command {
	var pf pageFlags
	cmd := &cobra.Command{
		Use:   "list [--limit N] [--cursor C] [--all]",
		Short: "list the event-type catalog",
		Args:  noArgs,
		RunE: e.call(func(ctx context.Context, c *apiclient.Client, _ *cobra.Command, _ []string) error {
			return e.printPages(pf, []string{"NAME", "SCHEMA", "EXAMPLES", "DEPRECATED", "DESCRIPTION"}, "No event types.",
				func(p apiclient.Page) (json.RawMessage, [][]any, string, error) {
					res, err := c.ListEventTypes(ctx, p)
					if err != nil {
						return nil, nil, "", err
					}
					var rows [][]any
					for _, t := range res.Data {
						rows = append(rows, []any{t.Name, yesNo(len(t.Schema) > 0), len(t.Examples), yesNo(t.Deprecated), orDash(firstLine(t.Description))})
					}
					return res.JSON(), rows, res.NextCursor, nil
				})
		}),
	}
	pf.register(cmd.Flags(), "event types")
	return cmd
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// firstLine is s up to its first line break, at most 60 characters.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}
