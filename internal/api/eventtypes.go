package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/catalog"
	"github.com/hookd/hookd/internal/ingest"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
)

// maxEventTypeBody bounds PUT /v1/event-types/{name}: the largest schema
// and examples catalog allows, and room for the rest.
const maxEventTypeBody = catalog.MaxSchemaSize + catalog.MaxExamples*catalog.MaxExampleSize + 16<<10

// EventTypeView is an event type of the catalog as the API shows it.
type EventTypeView = wire.CatalogType

func eventTypeOut(t *store.EventType) EventTypeView {
	out := EventTypeView{Name: t.Name, Description: t.Description, Schema: t.Schema, Examples: t.Examples,
		Deprecated: t.Deprecated, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}
	if out.Examples == nil {
		out.Examples = []json.RawMessage{}
	}
	return out
}

// validateCatalogName checks the name of a catalog type: an event type
// clients may post, so none in hookd's own namespace.
func validateCatalogName(name string) error {
	if err := validateEventType("name", name); err != nil {
		return err
	}
	if opevents.IsReserved(strings.ToLower(name)) {
		return invalid("name", "%q types are hookd's own events, not the catalog's", opevents.Reserved)
	}
	return nil
}

// catalogError maps a *catalog.Error to a 400 naming its field, with the
// failures of a payload or example as details; other errors pass.
func catalogError(err error) error {
	var ce *catalog.Error
	if errors.As(err, &ce) {
		return &Error{Code: CodeInvalid, Field: ce.Field, Message: ce.Message, Details: ce.Problems}
	}
	return err
}

// putEventType creates (201) or replaces (200) a type of the catalog. Its
// schema must compile and its examples must match it.
func (s *Server) putEventType(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "name")
	var body wire.EventTypePut
	err := validateCatalogName(name)
	var raw []byte
	if err == nil {
		raw, err = readBody(w, r, maxEventTypeBody)
	}
	if err == nil {
		if len(raw) == 0 {
			raw = []byte("{}")
		}
		err = decodeStrict(raw, &body)
	}
	now := s.now().UTC()
	t := &store.EventType{Name: name, Examples: wire.Deref(body.Examples), CreatedAt: now, UpdatedAt: now,
		Description: wire.Deref(body.Description), Deprecated: wire.Deref(body.Deprecated)}
	if schema := wire.Deref(body.Schema); !bytes.Equal(bytes.TrimSpace(schema), []byte("null")) {
		t.Schema = schema
	}
	if err == nil {
		err = catalogError(catalog.Check(t))
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	t.Schema, t.Examples = compact(t.Schema), compactAll(t.Examples)
	stored, created, err := s.store.PutEventType(r.Context(), t)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	s.log.Info("event type put", "event_type", name, "created", created, "by", scope(r).Actor())
	writeJSON(w, status, eventTypeOut(stored))
}

// compact is JSON text without insignificant space (Check made sure it is
// JSON); nil stays nil.
func compact(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func compactAll(raws []json.RawMessage) []json.RawMessage {
	for i := range raws {
		raws[i] = compact(raws[i])
	}
	return raws
}

func (s *Server) getEventType(w http.ResponseWriter, r *http.Request) {
	t, err := s.EventType(r.Context(), chi.URLParam(r, "name"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

// EventType returns a type of the catalog, which every scope may read.
func (s *Server) EventType(ctx context.Context, name string) (EventTypeView, error) {
	t, err := s.store.GetEventType(ctx, name)
	if err != nil {
		return EventTypeView{}, notFound(err, "event type")
	}
	return eventTypeOut(t), nil
}

func (s *Server) listEventTypes(w http.ResponseWriter, r *http.Request) {
	limit, err := parseLimit(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ts, next, err := s.EventTypes(r.Context(), store.Page{Cursor: r.URL.Query().Get("cursor"), Limit: limit})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.EventTypePage{Data: ts, NextCursor: next})
}

// EventTypes returns a page of the catalog in name order, which every
// scope may read, and the cursor of the next page.
func (s *Server) EventTypes(ctx context.Context, p store.Page) ([]EventTypeView, string, error) {
	ts, next, err := s.store.ListEventTypes(ctx, p)
	if err != nil {
		return nil, "", cursorError(err)
	}
	out := make([]EventTypeView, len(ts))
	for i, t := range ts {
		out[i] = eventTypeOut(t)
	}
	return out, next, nil
}

// deleteEventType removes a type from the catalog. Events of the type are
// accepted as of any type the catalog does not have.
func (s *Server) deleteEventType(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "name")
	if err := s.store.DeleteEventType(r.Context(), name); err != nil {
		s.writeError(w, r, notFound(err, "event type"))
		return
	}
	s.log.Info("event type deleted", "event_type", name, "by", scope(r).Actor())
	w.WriteHeader(http.StatusNoContent)
}

// checkCatalog checks a posted event against the catalog: its payload
// against its type's schema, and, with RequireEventTypes, that the
// catalog has its type.
func (s *Server) checkCatalog(ctx context.Context, ev ingest.Event) error {
	return catalogError(s.catalog.CheckEvent(ctx, ev.Type, []byte(ev.Body), s.requireEventTypes))
}

// Warning is something a request did that is allowed but likely a
// mistake, in the answer beside what it did: Field is the request field
// it is about, Value the entry at fault.
type Warning = wire.Warning

// typeWarnings names the entries of an endpoint's event_types that match
// no type of the catalog. They are allowed (a type may be added to the
// catalog later); a catalog that cannot be read gives no warnings.
func (s *Server) typeWarnings(ctx context.Context, eventTypes []string) []Warning {
	unmatched, err := s.catalog.Unmatched(ctx, eventTypes, opevents.Reserved)
	if err != nil {
		s.log.Warn("event types not compared with the catalog", "error", err)
		return nil
	}
	var out []Warning
	for _, f := range unmatched {
		out = append(out, Warning{Field: "event_types", Value: f, Message: "matches no type of the event-type catalog"})
	}
	return out
}

// Catalog returns every type of the catalog, sorted by name, from the
// process's cache: what the portal shows and offers to subscribe to.
func (s *Server) Catalog(ctx context.Context) ([]EventTypeView, error) {
	entries, err := s.catalog.Types(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]EventTypeView, len(entries))
	for i, e := range entries {
		out[i] = eventTypeOut(e.EventType)
	}
	return out, nil
}

// EventTypeWarnings names the entries of event_types that match no type
// of the catalog, as create and update answers do.
func (s *Server) EventTypeWarnings(ctx context.Context, eventTypes []string) []Warning {
	return s.typeWarnings(ctx, eventTypes)
}
