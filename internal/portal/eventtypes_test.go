package portal

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A schema's properties become rows: nested objects and array items
// under their parent, types and constraints in words.
func TestSchemaRows(t *testing.T) {
	rows := schemaRows(json.RawMessage(`{"type":"object","required":["id"],"properties":{
		"id":{"type":"string","pattern":"^in_","description":"The ID."},
		"amount":{"type":["integer","null"],"minimum":1,"maximum":10},
		"kind":{"const":"x"},
		"tags":{"type":"array","items":{"type":"string"},"maxItems":3},
		"lines":{"type":"array","items":{"type":"object","required":["sku"],"properties":{"sku":{"type":"string"}}}},
		"ref":{"$ref":"#/$defs/a"},
		"either":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`))
	require.Equal(t, []schemaRow{
		{Path: "amount", Type: "integer or null", Constraints: "≥ 1, ≤ 10"},
		{Path: "either", Type: "oneOf"},
		{Path: "id", Type: "string", Constraints: `pattern "^in_"`, Description: "The ID.", Required: true},
		{Path: "kind", Type: `exactly "x"`},
		{Path: "lines", Type: "array of object"},
		{Path: "lines[].sku", Type: "string", Required: true},
		{Path: "ref", Type: "see #/$defs/a"},
		{Path: "tags", Type: "array of string", Constraints: "max items 3"},
	}, rows)
	require.Empty(t, schemaRows(nil))
	require.Empty(t, schemaRows(json.RawMessage(`true`)), "a schema that is not an object has no rows")
}

// The ticked catalog types come first, then the typed ones, each once.
func TestFormMergesPicksAndTypedTypes(t *testing.T) {
	f := endpointForm{picks: []string{"invoice.paid"}, EventTypes: "order.*, invoice.paid"}
	require.Equal(t, []string{"invoice.paid", "order.*"}, *f.basePatch().EventTypes)
	f = endpointForm{Catalog: []catalogPick{{Name: "a.one"}, {Name: "b.two"}}, Picked: map[string]bool{"b.two": true}, EventTypes: "c.*"}
	require.Equal(t, []string{"b.two", "c.*"}, *f.basePatch().EventTypes)
}
