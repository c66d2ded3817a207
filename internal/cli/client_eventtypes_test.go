package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const eventTypeJSON = `{"name":"invoice.paid","description":"An invoice was paid.","schema":{"type":"object","required":["amount"]},"examples":[{"amount":5}],"deprecated":false,"created_at":"2026-11-30T10:00:00Z","updated_at":"2026-11-30T10:00:00Z"}`

func TestEventTypesPutReadsSchemaAndExamples(t *testing.T) {
	schema := filepath.Join(t.TempDir(), "schema.json")
	require.NoError(t, os.WriteFile(schema, []byte(`{"type":"object","required":["amount"]}`), 0o600))
	f := newFakeAPI(t)
	f.on("PUT /v1/event-types/{name}", 201, eventTypeJSON)
	out, _, err := cli("event-types", "put", "invoice.paid", "--description", "An invoice was paid.",
		"--schema", "@"+schema, "--example", `{"amount":5}`, "--example", `{"amount":6}`)
	require.NoError(t, err)
	require.Contains(t, out, "Created event type invoice.paid.")
	require.Contains(t, out, `"required": [`, "the schema, indented")
	req := f.only(t)
	require.Equal(t, "/v1/event-types/invoice.paid", req.Path)
	require.JSONEq(t, `{"description":"An invoice was paid.","schema":{"type":"object","required":["amount"]},"examples":[{"amount":5},{"amount":6}]}`, req.Body)

	_, _, err = cli("event-types", "put", "x", "--example", `[1]`)
	require.ErrorContains(t, err, "--example must be a JSON object")
}

func TestEventTypesListGetDelete(t *testing.T) {
	f := newFakeAPI(t)
	f.on("GET /v1/event-types", 200, `{"data":[`+eventTypeJSON+`]}`)
	f.on("GET /v1/event-types/{name}", 200, eventTypeJSON)
	f.on("DELETE /v1/event-types/{name}", 204, ``)
	out, _, err := cli("event-types", "list")
	require.NoError(t, err)
	require.Regexp(t, `invoice\.paid\s+yes\s+1\s+no\s+An invoice was paid\.`, out)
	out, _, err = cli("event-types", "get", "invoice.paid")
	require.NoError(t, err)
	require.Contains(t, out, "Example 1:")
	out, _, err = cli("event-types", "delete", "invoice.paid")
	require.NoError(t, err)
	require.Contains(t, out, "Deleted event type invoice.paid.")
}

func TestEndpointWarningsArePrinted(t *testing.T) {
	f := newFakeAPI(t)
	f.on("POST /v1/endpoints", 201, `{"id":"ep_1","url":"https://example.com/h","description":"","event_types":["order.shiped"],"enabled":true,"retry_schedule":[],"timeout":"15s","metadata":{},"created_at":"2026-11-30T10:00:00Z","updated_at":"2026-11-30T10:00:00Z","signing":{"scheme":"standard-webhooks"},"rate_limit":null,"propagate_trace":false,"warnings":[{"field":"event_types","value":"order.shiped","message":"matches no type of the event-type catalog"}]}`)
	out, _, err := cli("endpoints", "create", "--url", "https://example.com/h", "--event-type", "order.shiped")
	require.NoError(t, err)
	require.Contains(t, out, `Warning: event_types entry "order.shiped" matches no type of the event-type catalog.`)
}
