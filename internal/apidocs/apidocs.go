// Package apidocs renders the API's OpenAPI document as one self-contained
// HTML page: the human-readable reference hookd serves at GET /docs/api.
// The page is drawn on the server (no script, no external asset): the
// document's Markdown descriptions, every operation grouped by tag with
// its parameters, request body and answers, and the shared schemas.
package apidocs

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// Page is the reference as the template draws it.
type page struct {
	Title       string
	Version     string
	Description template.HTML
	Security    []scheme
	Tags        []tag
	Schemas     []namedSchema
}

type scheme struct {
	Name, Kind  string
	Description template.HTML
}

type tag struct {
	Name        string
	Description template.HTML
	Operations  []operation
}

type operation struct {
	ID, Method, Path, Summary string
	Description               template.HTML
	Auth                      string
	Params                    []param
	Body                      *body
	Responses                 []response
}

type param struct {
	Name, In, Type string
	Required       bool
	Description    template.HTML
}

type body struct {
	ContentType string
	Required    bool
	Schema      *schemaView
	Description template.HTML
}

type response struct {
	Status      string
	Description template.HTML
	ContentType string
	Schema      *schemaView
}

// schemaView is a schema drawn as a type line and, for objects, a table of
// properties; a reference to a shared schema is drawn as a link to it.
type schemaView struct {
	Ref         string // the shared schema's name, when this is a reference
	Type        string
	Description template.HTML
	Notes       []string // format, pattern, enum, bounds, default
	Props       []property
	Items       *schemaView
	Variants    []*schemaView // oneOf / anyOf / allOf
	VariantKind string
}

type property struct {
	Name     string
	Required bool
	Schema   *schemaView
}

type namedSchema struct {
	Name   string
	Schema *schemaView
}

// Render loads the OpenAPI document spec (YAML or JSON), resolves its
// references and returns the reference page, showing version as the API's
// version when it is not empty.
func Render(spec []byte, version string) ([]byte, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(spec)
	if err != nil {
		return nil, fmt.Errorf("apidocs: load the document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("apidocs: invalid document: %w", err)
	}
	p := page{Title: doc.Info.Title, Version: doc.Info.Version, Description: markdown(doc.Info.Description)}
	if version != "" {
		p.Version = version
	}
	if doc.Components == nil {
		doc.Components = &openapi3.Components{}
	}
	p.Security = schemes(doc)
	p.Tags = tags(doc)
	for _, name := range sortedKeys(doc.Components.Schemas) {
		p.Schemas = append(p.Schemas, namedSchema{Name: name, Schema: view(doc.Components.Schemas[name].Value, 0)})
	}
	var out bytes.Buffer
	if err := pageTemplate.Execute(&out, p); err != nil {
		return nil, fmt.Errorf("apidocs: render: %w", err)
	}
	return out.Bytes(), nil
}

func schemes(doc *openapi3.T) []scheme {
	var out []scheme
	for _, name := range sortedKeys(doc.Components.SecuritySchemes) {
		s := doc.Components.SecuritySchemes[name].Value
		kind := s.Type
		if s.Scheme != "" {
			kind += " (" + s.Scheme + ")"
		}
		out = append(out, scheme{Name: name, Kind: kind, Description: markdown(s.Description)})
	}
	return out
}

// tags groups the operations by their first tag, in the document's tag
// order, each group in path order; an operation without a tag goes under
// "Other".
func tags(doc *openapi3.T) []tag {
	index := map[string]int{}
	var out []tag
	add := func(name, desc string) int {
		if i, ok := index[name]; ok {
			return i
		}
		index[name] = len(out)
		out = append(out, tag{Name: name, Description: markdown(desc)})
		return index[name]
	}
	for _, t := range doc.Tags {
		add(t.Name, t.Description)
	}
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for _, method := range methodOrder {
			op := item.GetOperation(method)
			if op == nil {
				continue
			}
			name := "Other"
			if len(op.Tags) > 0 {
				name = op.Tags[0]
			}
			i := add(name, "")
			out[i].Operations = append(out[i].Operations, describe(doc, path, method, item, op))
		}
	}
	for i := range out {
		sort.SliceStable(out[i].Operations, func(a, b int) bool { return out[i].Operations[a].Path < out[i].Operations[b].Path })
	}
	kept := out[:0]
	for _, t := range out {
		if len(t.Operations) > 0 {
			kept = append(kept, t)
		}
	}
	return kept
}

var methodOrder = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

func describe(doc *openapi3.T, path, method string, item *openapi3.PathItem, op *openapi3.Operation) operation {
	o := operation{ID: op.OperationID, Method: method, Path: path, Summary: op.Summary, Description: markdown(op.Description)}
	o.Auth = auth(doc.Security, op.Security)
	for _, ref := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
		pv := ref.Value
		typ := ""
		if pv.Schema != nil {
			typ = typeLine(pv.Schema.Value)
		}
		o.Params = append(o.Params, param{Name: pv.Name, In: pv.In, Type: typ, Required: pv.Required, Description: markdown(pv.Description)})
	}
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		rb := op.RequestBody.Value
		ct, mt := firstContent(rb.Content)
		b := &body{ContentType: ct, Required: rb.Required, Description: markdown(rb.Description)}
		if mt != nil && mt.Schema != nil {
			b.Schema = refOrView(mt.Schema, 0)
		}
		o.Body = b
	}
	if op.Responses != nil {
		keys := op.Responses.Keys()
		sort.Strings(keys)
		for _, status := range keys {
			rv := op.Responses.Value(status).Value
			r := response{Status: status}
			if rv.Description != nil {
				r.Description = markdown(*rv.Description)
			}
			ct, mt := firstContent(rv.Content)
			r.ContentType = ct
			if mt != nil && mt.Schema != nil {
				r.Schema = refOrView(mt.Schema, 0)
			}
			o.Responses = append(o.Responses, r)
		}
	}
	return o
}

// auth names what an operation accepts: its own security requirements, or
// the document's when it has none; an empty list means no credential.
func auth(global openapi3.SecurityRequirements, own *openapi3.SecurityRequirements) string {
	reqs := global
	if own != nil {
		reqs = *own
	}
	var names []string
	for _, req := range reqs {
		for _, name := range sortedKeys(req) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, " or ")
}

func firstContent(c openapi3.Content) (string, *openapi3.MediaType) {
	for _, ct := range sortedKeys(c) {
		return ct, c[ct]
	}
	return "", nil
}

// schemaName is the shared schema a reference points to, or "".
func schemaName(ref *openapi3.SchemaRef) string {
	const prefix = "#/components/schemas/"
	if i := strings.Index(ref.Ref, prefix); i >= 0 {
		return ref.Ref[i+len(prefix):]
	}
	return ""
}

func refOrView(ref *openapi3.SchemaRef, depth int) *schemaView {
	if name := schemaName(ref); name != "" {
		return &schemaView{Ref: name, Type: name}
	}
	if wrapped := soleRef(ref.Value); wrapped != "" {
		// allOf: [$ref] is how the document gives a reference a
		// description of its own (or makes it nullable): draw it as the
		// reference, with that description.
		return &schemaView{Ref: wrapped, Type: wrapped, Description: markdown(ref.Value.Description), Notes: notes(ref.Value)}
	}
	return view(ref.Value, depth)
}

// soleRef is the shared schema s only wraps (allOf holding one reference
// and nothing else that shapes the value), or "".
func soleRef(s *openapi3.Schema) string {
	if s == nil || len(s.AllOf) != 1 || len(s.Properties) > 0 || s.Items != nil || len(s.OneOf)+len(s.AnyOf) > 0 {
		return ""
	}
	if s.Type != nil && !s.Type.IsEmpty() && !s.Type.Is("object") {
		return ""
	}
	return schemaName(s.AllOf[0])
}

// maxDepth bounds how deep inline schemas are drawn; deeper ones (and
// every shared schema) are drawn where they are defined.
const maxDepth = 4

func view(s *openapi3.Schema, depth int) *schemaView {
	if s == nil {
		return &schemaView{Type: "any"}
	}
	v := &schemaView{Type: typeLine(s), Description: markdown(s.Description), Notes: notes(s)}
	if depth >= maxDepth {
		return v
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	for _, name := range sortedKeys(s.Properties) {
		v.Props = append(v.Props, property{Name: name, Required: required[name], Schema: refOrView(s.Properties[name], depth+1)})
	}
	if s.Items != nil {
		v.Items = refOrView(s.Items, depth+1)
	}
	for kind, list := range map[string]openapi3.SchemaRefs{"one of": s.OneOf, "any of": s.AnyOf, "all of": s.AllOf} {
		if len(list) == 0 {
			continue
		}
		v.VariantKind = kind
		for _, ref := range list {
			v.Variants = append(v.Variants, refOrView(ref, depth+1))
		}
	}
	return v
}

func typeLine(s *openapi3.Schema) string {
	if s == nil {
		return "any"
	}
	t := "any"
	if s.Type != nil && len(s.Type.Slice()) > 0 {
		t = strings.Join(s.Type.Slice(), " | ")
	}
	if t == "array" && s.Items != nil {
		if name := schemaName(s.Items); name != "" {
			t = name + "[]"
		} else if s.Items.Value != nil {
			t = typeLine(s.Items.Value) + "[]"
		}
	}
	if s.Nullable {
		t += " | null"
	}
	return t
}

func notes(s *openapi3.Schema) []string {
	var out []string
	if s.Format != "" {
		out = append(out, "format: "+s.Format)
	}
	if s.Pattern != "" {
		out = append(out, "pattern: "+s.Pattern)
	}
	if len(s.Enum) > 0 {
		var vals []string
		for _, e := range s.Enum {
			vals = append(vals, fmt.Sprint(e))
		}
		out = append(out, "one of: "+strings.Join(vals, ", "))
	}
	if s.Min != nil {
		out = append(out, fmt.Sprintf("minimum: %v", *s.Min))
	}
	if s.Max != nil {
		out = append(out, fmt.Sprintf("maximum: %v", *s.Max))
	}
	if s.MinLength > 0 {
		out = append(out, fmt.Sprintf("min length: %d", s.MinLength))
	}
	if s.MaxLength != nil {
		out = append(out, fmt.Sprintf("max length: %d", *s.MaxLength))
	}
	if s.MaxItems != nil {
		out = append(out, fmt.Sprintf("max items: %d", *s.MaxItems))
	}
	if s.Default != nil {
		out = append(out, fmt.Sprintf("default: %v", s.Default))
	}
	if s.Nullable && soleRef(s) != "" {
		out = append(out, "may be null")
	}
	if s.ReadOnly {
		out = append(out, "read only")
	}
	if s.WriteOnly {
		out = append(out, "write only")
	}
	return out
}

// md renders the document's descriptions: CommonMark with tables; raw
// HTML in a description is escaped, not passed through.
var md = goldmark.New(goldmark.WithExtensions(extension.Table))

func markdown(s string) template.HTML {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	var b bytes.Buffer
	if err := md.Convert([]byte(s), &b); err != nil {
		return template.HTML(template.HTMLEscapeString(s))
	}
	return template.HTML(b.String()) // goldmark escapes raw HTML (unsafe rendering is off)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
