package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hookd/hookd/internal/store"
)

const eventTypeColumns = `name, description, schema_json, examples, deprecated, created_at, updated_at`

// PutEventType creates the type or replaces everything but its name and
// CreatedAt, and returns it as stored and whether it was created.
func (s *Store) PutEventType(ctx context.Context, t *store.EventType) (*store.EventType, bool, error) {
	out, created, err := s.putEventType(ctx, t)
	if err != nil {
		return nil, false, fmt.Errorf("put event type: %w", err)
	}
	return out, created, nil
}

func (s *Store) putEventType(ctx context.Context, t *store.EventType) (*store.EventType, bool, error) {
	if t.Name == "" || t.CreatedAt.IsZero() || t.UpdatedAt.IsZero() {
		return nil, false, errors.New("Name, CreatedAt and UpdatedAt are required")
	}
	examples, err := json.Marshal(orEmpty(t.Examples))
	if err != nil {
		return nil, false, err
	}
	var schema sql.NullString
	if len(t.Schema) > 0 {
		schema = sql.NullString{String: string(t.Schema), Valid: true}
	}
	var (
		out     *store.EventType
		created bool
	)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		// Insert-or-nothing first, as for tenants: of two processes
		// creating the same type, exactly one says it created it.
		res, err := tx.ExecContext(ctx, `INSERT INTO hookd_event_types (`+eventTypeColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (name) DO NOTHING`,
			t.Name, t.Description, schema, string(examples), t.Deprecated, t.CreatedAt.UnixNano(), t.UpdatedAt.UnixNano())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if created = n == 1; !created {
			if err := execOneIn(ctx, tx, `UPDATE hookd_event_types SET description = $2, schema_json = $3, examples = $4,
				deprecated = $5, updated_at = $6 WHERE name = $1`,
				t.Name, t.Description, schema, string(examples), t.Deprecated, t.UpdatedAt.UnixNano()); err != nil {
				return err
			}
		}
		if err := bumpEventTypesVersion(ctx, tx); err != nil {
			return err
		}
		out, err = scanEventType(tx.QueryRowContext(ctx, `SELECT `+eventTypeColumns+` FROM hookd_event_types WHERE name = $1`, t.Name))
		return err
	})
	return out, created, err
}

// orEmpty is v, or an empty list for nil, so it is stored as [].
func orEmpty[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

// GetEventType returns the type or store.ErrNotFound.
func (s *Store) GetEventType(ctx context.Context, name string) (*store.EventType, error) {
	t, err := scanEventType(s.read.QueryRowContext(ctx, `SELECT `+eventTypeColumns+` FROM hookd_event_types WHERE name = $1`, name))
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get event type: %w", err)
	}
	return t, nil
}

// ListEventTypes returns up to p.Limit types (50 when zero, at most 500)
// after p.Cursor in name order, and the cursor of the next page.
func (s *Store) ListEventTypes(ctx context.Context, p store.Page) ([]*store.EventType, string, error) {
	ts, next, err := s.listEventTypes(ctx, p)
	if err != nil {
		return nil, "", fmt.Errorf("list event types: %w", err)
	}
	return ts, next, nil
}

func (s *Store) listEventTypes(ctx context.Context, p store.Page) ([]*store.EventType, string, error) {
	after, err := parseCursor(p.Cursor)
	if err != nil {
		return nil, "", err
	}
	limit := pageLimit(p)
	ts, err := queryRows(ctx, s.read, scanEventType, `SELECT `+eventTypeColumns+` FROM hookd_event_types
		WHERE name > $1 ORDER BY name LIMIT $2`, after.id, limit+1)
	if err != nil {
		return nil, "", err
	}
	ts, next := pageOf(ts, limit, func(t *store.EventType) cursor { return cursor{id: t.Name} })
	return ts, next, nil
}

// DeleteEventType removes the type, or returns store.ErrNotFound.
func (s *Store) DeleteEventType(ctx context.Context, name string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := execOneIn(ctx, tx, `DELETE FROM hookd_event_types WHERE name = $1`, name); err != nil {
			return err
		}
		return bumpEventTypesVersion(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("delete event type: %w", err)
	}
	return nil
}

// EventTypesVersion returns the count of changes to the catalog as of
// a read begun after the call, shared with concurrent callers
// (versionReads).
func (s *Store) EventTypesVersion(ctx context.Context) (int64, error) {
	v, err := s.versions.get(ctx)
	if err != nil {
		return 0, fmt.Errorf("event types version: %w", err)
	}
	return v.eventTypes, nil
}

func bumpEventTypesVersion(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `UPDATE hookd_event_type_changes SET version = version + 1 WHERE id = 1`); err != nil {
		return fmt.Errorf("count event type change: %w", err)
	}
	return nil
}

// scanEventType reads one row of eventTypeColumns.
func scanEventType(sc scanner) (*store.EventType, error) {
	var (
		t                store.EventType
		schema           sql.NullString
		examples         string
		created, updated int64
	)
	if err := sc.Scan(&t.Name, &t.Description, &schema, &examples, &t.Deprecated, &created, &updated); err != nil {
		return nil, err
	}
	if schema.Valid {
		t.Schema = json.RawMessage(schema.String)
	}
	if err := json.Unmarshal([]byte(examples), &t.Examples); err != nil {
		return nil, fmt.Errorf("event type %s: examples: %w", t.Name, err)
	}
	if len(t.Examples) == 0 {
		t.Examples = nil
	}
	t.CreatedAt, t.UpdatedAt = fromNanos(created), fromNanos(updated)
	return &t, nil
}
