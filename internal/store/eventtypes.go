package store

import (
	"context"
	"encoding/json"
	"time"
)

// EventType is one entry of the event-type catalog: a type of event the
// platform sends, as its customers read about it. The store keeps what it
// is given; package catalog checks a type before it is put.
type EventType struct {
	// Name is the type events carry, e.g. "invoice.paid".
	Name        string
	Description string
	// Schema is the JSON Schema (draft 2020-12) its payloads match, as
	// JSON text; nil when the type has none.
	Schema json.RawMessage
	// Examples are example payloads, JSON objects.
	Examples []json.RawMessage
	// Deprecated types are still accepted and shown as deprecated.
	Deprecated bool
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// EventTypes keeps the event-type catalog, one for the whole platform:
// every tenant reads the same types.
type EventTypes interface {
	// PutEventType creates the type or replaces its description, schema,
	// examples and deprecated flag, and returns it as stored and whether
	// it was created. CreatedAt and UpdatedAt are set by the caller; an
	// update keeps CreatedAt.
	PutEventType(ctx context.Context, t *EventType) (*EventType, bool, error)
	// GetEventType returns the type or ErrNotFound.
	GetEventType(ctx context.Context, name string) (*EventType, error)
	// ListEventTypes returns a page of types ordered by name and the
	// cursor of the next page ("" when there is none).
	ListEventTypes(ctx context.Context, p Page) ([]*EventType, string, error)
	// DeleteEventType removes the type, or returns ErrNotFound.
	DeleteEventType(ctx context.Context, name string) error
	// EventTypesVersion is a counter every change to the catalog
	// increments in its own transaction: what a cache of the catalog
	// compares to know it is current.
	EventTypesVersion(ctx context.Context) (int64, error)
}
