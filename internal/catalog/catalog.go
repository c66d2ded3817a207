// Package catalog is hookd's event-type catalog: the types of event a
// platform declares it sends, each with a description, an optional JSON
// Schema (draft 2020-12) its payloads must match, example payloads and a
// deprecated flag. The store keeps the types (store.EventTypes); this
// package checks a type before it is put (Check), checks an event's
// payload against its type at ingest (CheckEvent) and tells which of an
// endpoint's event_types entries name no type (Unmatched).
//
// A Catalog caches the types with their schemas compiled, per process. A
// lookup costs one single-row read of the store's change counter; the
// types load again, and a schema compiles again, only after a change.
package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hookd/hookd/internal/store"
)

// Bounds of a type's parts.
const (
	MaxDescription = 4 << 10
	MaxSchemaSize  = 64 << 10
	MaxExamples    = 10
	MaxExampleSize = 16 << 10
)

// Error is a type refused by Check or an event refused by CheckEvent:
// the field at fault, a message safe to show the caller and, for a
// payload that fails its schema, the first failures.
type Error struct {
	Field    string
	Message  string
	Problems []Problem
}

func (e *Error) Error() string { return e.Field + ": " + e.Message }

// Check validates a type before it is put: the description's length, the
// schema (it must compile; field "schema"), and each example (a JSON
// object matching the schema; field "examples[i]" with the failures).
func Check(t *store.EventType) error {
	if len(t.Description) > MaxDescription {
		return &Error{Field: "description", Message: fmt.Sprintf("must be at most %d bytes", MaxDescription)}
	}
	var schema *Schema
	if len(t.Schema) > 0 {
		if len(t.Schema) > MaxSchemaSize {
			return &Error{Field: "schema", Message: fmt.Sprintf("must be at most %d bytes", MaxSchemaSize)}
		}
		var err error
		if schema, err = CompileSchema(t.Schema); err != nil {
			return &Error{Field: "schema", Message: "not a valid JSON Schema: " + err.Error()}
		}
	}
	if len(t.Examples) > MaxExamples {
		return &Error{Field: "examples", Message: fmt.Sprintf("must have at most %d examples", MaxExamples)}
	}
	for i, ex := range t.Examples {
		field := fmt.Sprintf("examples[%d]", i)
		switch {
		case len(ex) > MaxExampleSize:
			return &Error{Field: field, Message: fmt.Sprintf("must be at most %d bytes", MaxExampleSize)}
		case !json.Valid(ex):
			return &Error{Field: field, Message: "invalid JSON"}
		case len(bytes.TrimSpace(ex)) == 0 || bytes.TrimSpace(ex)[0] != '{':
			return &Error{Field: field, Message: "must be a JSON object, as event payloads are"}
		}
		if schema == nil {
			continue
		}
		if p := schema.Validate(ex); len(p) > 0 {
			return &Error{Field: field, Message: "does not match the schema: " + joinProblems(p), Problems: p}
		}
	}
	return nil
}

func joinProblems(ps []Problem) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, "; ")
}

// Entry is a type of the catalog with its schema compiled (nil when it
// has none, or when a stored schema no longer compiles).
type Entry struct {
	*store.EventType
	Schema *Schema
}

// Source is where a Catalog reads the types: the store.
type Source interface {
	EventTypesVersion(ctx context.Context) (int64, error)
	ListEventTypes(ctx context.Context, p store.Page) ([]*store.EventType, string, error)
}

// Catalog is a process's cache of the event types, safe for concurrent
// use.
type Catalog struct {
	src Source

	mu      sync.Mutex
	loaded  bool
	version int64
	types   map[string]*Entry
}

// New returns a Catalog reading src.
func New(src Source) *Catalog { return &Catalog{src: src} }

// current returns the types as of the store's version, loading them
// again when it changed. The version is read first, so the types are
// never kept under a newer version than the one they reflect.
func (c *Catalog) current(ctx context.Context) (map[string]*Entry, error) {
	v, err := c.src.EventTypesVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("event-type catalog: %w", err)
	}
	c.mu.Lock()
	types, fresh := c.types, c.loaded && c.version == v
	c.mu.Unlock()
	if fresh {
		return types, nil
	}
	next := make(map[string]*Entry, len(types))
	for cursor := ""; ; {
		page, more, err := c.src.ListEventTypes(ctx, store.Page{Cursor: cursor, Limit: store.MaxPageSize})
		if err != nil {
			return nil, fmt.Errorf("event-type catalog: %w", err)
		}
		for _, t := range page {
			next[t.Name] = compiled(t, types[t.Name])
		}
		if cursor = more; cursor == "" {
			break
		}
	}
	c.mu.Lock()
	if !c.loaded || v >= c.version {
		c.loaded, c.version, c.types = true, v, next
	}
	c.mu.Unlock()
	return next, nil
}

// compiled is t's entry, keeping the schema compiled for the previous
// entry when t's is the same.
func compiled(t *store.EventType, prev *Entry) *Entry {
	if prev != nil && bytes.Equal(prev.EventType.Schema, t.Schema) {
		return &Entry{EventType: t, Schema: prev.Schema}
	}
	e := &Entry{EventType: t}
	if len(t.Schema) > 0 {
		e.Schema, _ = CompileSchema(t.Schema) // Check refused those that do not
	}
	return e
}

// Lookup returns the type named name, or nil when the catalog has none.
func (c *Catalog) Lookup(ctx context.Context, name string) (*Entry, error) {
	types, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	return types[name], nil
}

// Types returns every type, sorted by name.
func (c *Catalog) Types(ctx context.Context) ([]*Entry, error) {
	types, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Entry, 0, len(types))
	for _, e := range types {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// CheckEvent checks an event posted by a client against its type: a
// payload that fails the type's schema is an *Error on "payload" naming
// the failures, and, when require is set, a type the catalog does not
// have is an *Error on "type". A type without a schema takes any payload;
// a deprecated one is still accepted.
func (c *Catalog) CheckEvent(ctx context.Context, eventType string, payload []byte, require bool) error {
	e, err := c.Lookup(ctx, eventType)
	switch {
	case err != nil:
		return err
	case e == nil && require:
		return &Error{Field: "type", Message: fmt.Sprintf("event type %q is not in the event-type catalog, and this hookd accepts only the catalog's types", eventType)}
	case e == nil || e.Schema == nil:
		return nil
	}
	if p := e.Schema.Validate(payload); len(p) > 0 {
		return &Error{Field: "payload", Message: fmt.Sprintf("does not match the schema of event type %q: %s", eventType, joinProblems(p)), Problems: p}
	}
	return nil
}

// Unmatched returns the entries of an endpoint's event_types that match
// no type of the catalog: an exact name it does not have, a wildcard
// ("order.*", "*") that matches none of its types. Entries in hookd's own
// namespace (reserved, see package opevents) are never reported; none
// are while the catalog is empty, as a platform that keeps no catalog
// has nothing to compare with.
func (c *Catalog) Unmatched(ctx context.Context, eventTypes []string, reserved string) ([]string, error) {
	types, err := c.current(ctx)
	if err != nil || len(types) == 0 {
		return nil, err
	}
	var out []string
	for _, f := range eventTypes {
		if strings.HasPrefix(strings.ToLower(f), reserved) {
			continue
		}
		if _, ok := types[f]; ok {
			continue
		}
		matched := false
		for name := range types {
			if store.TypeMatches(f, name) {
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, f)
		}
	}
	return out, nil
}
