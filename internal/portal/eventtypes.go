package portal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/store"
)

// eventTypesPage is the data of the "Event types" page: one page of the
// catalog, each type with its schema rendered.
type eventTypesPage struct {
	Types []eventTypeView
	Next  template.URL
}

// eventTypeView is a catalog type as the page shows it.
type eventTypeView struct {
	api.EventTypeView
	// Properties are the schema's properties, nested ones under their
	// parent; SchemaJSON and Examples are indented JSON.
	Properties []schemaRow
	SchemaJSON string
	Examples   []string
}

func (p *Portal) listEventTypes(w http.ResponseWriter, r *http.Request) {
	ts, next, err := p.api.EventTypes(r.Context(), store.Page{Cursor: r.URL.Query().Get("cursor"), Limit: pageSize})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	var page eventTypesPage
	for _, t := range ts {
		v := eventTypeView{EventTypeView: t, Properties: schemaRows(t.Schema)}
		if len(t.Schema) > 0 {
			v.SchemaJSON = indentJSON(t.Schema)
		}
		for _, ex := range t.Examples {
			v.Examples = append(v.Examples, indentJSON(ex))
		}
		page.Types = append(page.Types, v)
	}
	if next != "" {
		page.Next = template.URL("?" + url.Values{"cursor": {next}}.Encode())
	}
	p.renderView(w, r, http.StatusOK, "eventtypes", view{Section: "event-types", Data: page})
}

// indentJSON is raw indented by two spaces, or raw when it is not JSON.
func indentJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// schemaRow is one property of a schema, as a row of the page's table.
type schemaRow struct {
	// Path names the property, a nested one after its parent's
	// ("customer.email"; "items[].sku" within an array's items).
	Path, Type, Constraints, Description string
	Required                             bool
}

// maxSchemaDepth bounds how deep the table follows nested objects; the
// JSON below it shows the rest.
const maxSchemaDepth = 4

// schemaRows lists the properties of an object schema, and of the
// objects nested in it, in name order; none for a schema that is not
// one.
func schemaRows(raw json.RawMessage) []schemaRow {
	var s map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return nil
	}
	var rows []schemaRow
	addProperties(&rows, "", s, 0)
	return rows
}

func addProperties(rows *[]schemaRow, prefix string, s map[string]any, depth int) {
	props, _ := s["properties"].(map[string]any)
	if depth >= maxSchemaDepth || len(props) == 0 {
		return
	}
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ps, _ := props[n].(map[string]any)
		path := prefix + n
		desc, _ := ps["description"].(string)
		*rows = append(*rows, schemaRow{Path: path, Type: typeOf(ps), Constraints: constraintsOf(ps), Description: desc, Required: required[n]})
		addProperties(rows, path+".", ps, depth+1)
		if items, ok := ps["items"].(map[string]any); ok {
			addProperties(rows, path+"[].", items, depth+1)
		}
	}
}

// typeOf says in a few words what values a property takes.
func typeOf(s map[string]any) string {
	switch {
	case s == nil:
		return "any"
	case s["const"] != nil:
		return "exactly " + jsonText(s["const"])
	case s["enum"] != nil:
		vals, _ := s["enum"].([]any)
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = jsonText(v)
		}
		return "one of " + strings.Join(parts, ", ")
	case s["$ref"] != nil:
		return fmt.Sprintf("see %v", s["$ref"])
	}
	var t string
	switch v := s["type"].(type) {
	case string:
		t = v
	case []any:
		parts := make([]string, len(v))
		for i, p := range v {
			parts[i] = fmt.Sprint(p)
		}
		t = strings.Join(parts, " or ")
	default:
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if s[k] != nil {
				return k
			}
		}
		return "any"
	}
	if items, ok := s["items"].(map[string]any); ok && t == "array" {
		t = "array of " + typeOf(items)
	}
	return t
}

// constraints are the keywords constraintsOf shows, in order.
var constraints = []struct{ key, label string }{
	{"format", "format"}, {"pattern", "pattern"},
	{"minimum", "≥"}, {"exclusiveMinimum", ">"}, {"maximum", "≤"}, {"exclusiveMaximum", "<"},
	{"minLength", "min length"}, {"maxLength", "max length"},
	{"minItems", "min items"}, {"maxItems", "max items"}, {"default", "default"},
}

func constraintsOf(s map[string]any) string {
	var out []string
	for _, c := range constraints {
		if v, ok := s[c.key]; ok {
			out = append(out, c.label+" "+jsonText(v))
		}
	}
	return strings.Join(out, ", ")
}

// jsonText is a value as JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// catalogPick is a type of the catalog the endpoint form offers to tick.
type catalogPick struct {
	Name, Description string
	Deprecated        bool
}

// fillCatalog gives the form the catalog's types to tick: those the
// typed event types name exactly are ticked and leave the text field,
// which keeps wildcards and names the catalog lacks. Without a catalog
// (or when it cannot be read) the form has the text field alone.
func (p *Portal) fillCatalog(ctx context.Context, f *endpointForm) {
	types, err := p.api.Catalog(ctx)
	if err != nil {
		p.log.Warn("portal: event-type catalog not read", "error", err)
		return
	}
	f.Catalog, f.Picked = nil, map[string]bool{}
	known := map[string]bool{}
	for _, t := range types {
		known[t.Name] = true
		desc, _, _ := strings.Cut(t.Description, "\n")
		f.Catalog = append(f.Catalog, catalogPick{Name: t.Name, Description: desc, Deprecated: t.Deprecated})
	}
	var rest []string
	for _, t := range append(f.picks, fieldsOf(f.EventTypes)...) {
		if known[t] {
			f.Picked[t] = true
		} else {
			rest = append(rest, t)
		}
	}
	f.EventTypes = strings.Join(rest, ", ")
}

// withExamples are the names of the catalog's types that have an
// example, which a test event can carry.
func (p *Portal) withExamples(ctx context.Context) []string {
	types, err := p.api.Catalog(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range types {
		if len(t.Examples) > 0 {
			out = append(out, t.Name)
		}
	}
	return out
}
