package catalog

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

const invoiceSchema = `{"type":"object","properties":{"amount":{"type":"integer","minimum":0},"currency":{"enum":["EUR","USD"]}},"required":["amount","currency"]}`

func TestCheckRefusesInvalidSchemas(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"nope"}`:                       "not a valid JSON Schema",
		`{"type":`:                              "invalid JSON",
		`[1]`:                                   "must be a JSON object",
		`{"$ref":"file:///etc/passwd"}`:         "references outside the schema are not supported",
		`{"$ref":"https://example.com/s.json"}`: "references outside the schema are not supported",
		`{"properties":{"a":{"minimum":"x"}}}`:  "minimum",
		`{"$ref":"#/$defs/missing"}`:            "missing",
		`{"pattern":"(["}`:                      "pattern",
		`{"$defs":{"a":{"type":"integer"}},"$ref":"#/$defs/a"}`: "",
	} {
		err := Check(&store.EventType{Name: "x", Schema: json.RawMessage(schema)})
		if want == "" {
			require.NoError(t, err, schema)
			continue
		}
		var e *Error
		require.ErrorAs(t, err, &e, schema)
		require.Equal(t, "schema", e.Field, schema)
		require.Contains(t, e.Message, want, schema)
		require.NotContains(t, e.Message, schemaURL, "the internal URL stays out")
	}
}

func TestCheckValidatesExamples(t *testing.T) {
	et := &store.EventType{Name: "invoice.paid", Schema: json.RawMessage(invoiceSchema),
		Examples: []json.RawMessage{json.RawMessage(`{"amount":5,"currency":"EUR"}`), json.RawMessage(`{"amount":"5","currency":"GBP"}`)}}
	var e *Error
	require.ErrorAs(t, Check(et), &e)
	require.Equal(t, "examples[1]", e.Field)
	require.Equal(t, []string{"/amount", "/currency"}, pointers(e.Problems))
	require.Contains(t, e.Message, `at "/amount": got string, want integer`)

	et.Examples = []json.RawMessage{json.RawMessage(`[1]`)}
	require.ErrorAs(t, Check(et), &e)
	require.Equal(t, "examples[0]", e.Field)
	et.Schema, et.Examples = nil, []json.RawMessage{json.RawMessage(`{"any":"thing"}`)}
	require.NoError(t, Check(et), "no schema: any object")
}

func pointers(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Pointer)
	}
	return out
}

func TestValidateNamesTheFirstFailures(t *testing.T) {
	s, err := CompileSchema(json.RawMessage(`{"type":"object","required":["a","b"],"properties":{"x/y":{"type":"string"},"items":{"type":"array","items":{"type":"integer"}}}}`))
	require.NoError(t, err)
	require.Empty(t, s.Validate([]byte(`{"a":1,"b":2,"items":[1,2]}`)))
	p := s.Validate([]byte(`{"x/y":1,"items":[1,"two","three","four"]}`))
	require.Len(t, p, maxProblems)
	p = s.Validate([]byte(`{"a":1,"b":2,"x/y":1}`))
	require.Equal(t, []string{"/x~1y"}, pointers(p), "pointers escape /")
	p = s.Validate([]byte(`{"a":1,"b":2,"items":[1,"two"]}`))
	require.Equal(t, []Problem{{Pointer: "/items/1", Reason: "got string, want integer"}}, p)
}

// fakeSource counts its loads.
type fakeSource struct {
	version int64
	types   []*store.EventType
	lists   int
}

func (f *fakeSource) EventTypesVersion(context.Context) (int64, error) { return f.version, nil }

func (f *fakeSource) ListEventTypes(_ context.Context, p store.Page) ([]*store.EventType, string, error) {
	f.lists++
	return f.types, "", nil
}

func TestCatalogCachesUntilAChange(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	src := &fakeSource{version: 1, types: []*store.EventType{{Name: "invoice.paid", Schema: json.RawMessage(invoiceSchema), UpdatedAt: now}}}
	c := New(src)
	for range 3 {
		require.NoError(t, c.CheckEvent(ctx, "invoice.paid", []byte(`{"amount":5,"currency":"EUR"}`), true))
	}
	require.Equal(t, 1, src.lists, "loaded once while the version stays")
	first, err := c.Lookup(ctx, "invoice.paid")
	require.NoError(t, err)

	err = c.CheckEvent(ctx, "invoice.paid", []byte(`{"amount":-1}`), false)
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "payload", e.Field)
	require.Equal(t, []string{"", "/amount"}, pointers(e.Problems), "the missing property, then the bad one")
	require.Contains(t, e.Message, `event type "invoice.paid"`)

	require.NoError(t, c.CheckEvent(ctx, "order.created", []byte(`{}`), false), "not in the catalog: accepted")
	require.ErrorAs(t, c.CheckEvent(ctx, "order.created", []byte(`{}`), true), &e)
	require.Equal(t, "type", e.Field)

	// A change to another type: the unchanged schema is not compiled again.
	src.version++
	src.types = append(src.types, &store.EventType{Name: "order.created", Schema: json.RawMessage(`{"required":["id"]}`)})
	require.ErrorAs(t, c.CheckEvent(ctx, "order.created", []byte(`{}`), false), &e)
	require.Equal(t, 2, src.lists)
	again, err := c.Lookup(ctx, "invoice.paid")
	require.NoError(t, err)
	require.Same(t, first.Schema, again.Schema)

	// The schema removed: any payload.
	src.version++
	src.types = []*store.EventType{{Name: "invoice.paid", Deprecated: true}}
	require.NoError(t, c.CheckEvent(ctx, "invoice.paid", []byte(`{"amount":-1}`), true), "deprecated and schemaless: accepted")
	src.version++
	src.types = append(src.types, &store.EventType{Name: "a.first"})
	all, err := c.Types(ctx)
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.Equal(t, "a.first", all[0].Name, "sorted by name")
}

func TestUnmatched(t *testing.T) {
	ctx := context.Background()
	src := &fakeSource{version: 1}
	c := New(src)
	got, err := c.Unmatched(ctx, []string{"invoice.paid", "nothing.*"}, "hookd.")
	require.NoError(t, err)
	require.Empty(t, got, "an empty catalog warns of nothing")

	src.version++
	src.types = []*store.EventType{{Name: "invoice.paid"}, {Name: "order.created"}}
	got, err = c.Unmatched(ctx, []string{"invoice.paid", "invoice.*", "*", "order.shipped", "nothing.*", "hookd.endpoint.*", "invoice.paid.*"}, "hookd.")
	require.NoError(t, err)
	require.Equal(t, []string{"order.shipped", "nothing.*", "invoice.paid.*"}, got)
}
