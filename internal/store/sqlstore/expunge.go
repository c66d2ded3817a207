package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// wrapKey seals an event's data key with the master key, bound to the
// event ID; nil stays nil (NULL).
func (s *Store) wrapKey(eventID string, key []byte) ([]byte, error) {
	if key == nil {
		return nil, nil
	}
	sealed, err := s.box.Seal(key, keyAD(eventID))
	if err != nil {
		return nil, fmt.Errorf("wrap data key: %w", err)
	}
	return sealed, nil
}

// unwrapKey is wrapKey's inverse.
func (s *Store) unwrapKey(eventID string, wrapped []byte) ([]byte, error) {
	if len(wrapped) == 0 {
		return nil, nil
	}
	key, err := s.box.Open(wrapped, keyAD(eventID))
	if err != nil {
		return nil, fmt.Errorf("unwrap data key of event %s: %w", eventID, err)
	}
	return key, nil
}

func keyAD(eventID string) []byte { return []byte("hookd event key\x00" + eventID) }

// ExpungeEvent overwrites the event's payload, digest and key and marks
// it expunged, with the events announce returns for it in the outbox, in
// one transaction; then it runs the dialect's AfterErase.
func (s *Store) ExpungeEvent(ctx context.Context, id, by, reason string, at time.Time, announce func(*store.Event) []store.OpEvent) (*store.Event, bool, error) {
	var (
		ev      *store.Event
		changed bool
		events  []store.OpEvent
	)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if ev, err = s.readEvent(ctx, tx, id); err != nil {
			return err
		}
		if ev.Expunge != nil {
			return nil
		}
		x := &store.Expunge{At: fromNanos(at.UnixNano()), By: by, Reason: reason, Keyless: ev.DataKey == nil}
		// Of concurrent expunges (PostgreSQL), the first to update wins;
		// the others change nothing and read its record again.
		res, err := tx.ExecContext(ctx, `UPDATE hookd_events SET payload = '', digest = '', data_key = NULL,
			expunged_at = $2, expunged_by = $3, expunge_reason = $4, expunged_keyless = $5
			WHERE event_id = $1 AND expunged_at IS NULL`,
			id, at.UnixNano(), by, reason, x.Keyless)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				ev, err = s.readEvent(ctx, tx, id)
			}
			return err
		}
		ev.Payload, ev.Digest, ev.DataKey, ev.Expunge, changed = "", "", nil, x, true
		if announce != nil {
			events = announce(ev)
		}
		return recordOpEvents(ctx, tx, events)
	})
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, false, fmt.Errorf("expunge event %s: %w", id, err)
	}
	s.announced(events)
	if changed && s.dialect.AfterErase != "" {
		if _, err := s.write.ExecContext(ctx, s.dialect.AfterErase); err != nil {
			return nil, false, fmt.Errorf("expunge event %s: %w", id, err)
		}
	}
	return ev, changed, nil
}
