package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// insertColumns are what ClaimEvent writes; eventColumns what scanEvent
// reads; listColumns the same without the payload and key, which lists
// leave out.
const (
	insertColumns  = `event_id, type, digest, payload, tenant_id, accepted_at, tenant_incarnation, data_key`
	expungeColumns = `expunged_at, expunged_by, expunge_reason, expunged_keyless`
	eventColumns   = insertColumns + `, ` + expungeColumns
	listColumns    = `event_id, type, digest, '', tenant_id, accepted_at, tenant_incarnation, NULL, ` + expungeColumns
)

const (
	// deliveryRowsPerInsert keeps one INSERT's parameters well under
	// SQLite's and PostgreSQL's limits.
	deliveryRowsPerInsert = 500
	// pruneBatch bounds the rows one prune statement deletes, so a large
	// backlog never holds the write lock long.
	pruneBatch = 1000
)

// ClaimEvent inserts ev and its deliveries in one transaction (on
// PostgreSQL one statement, claimSQL) unless an event with its ID
// exists, in which case it returns that one. The primary
// key decides between concurrent claims: on PostgreSQL a second INSERT
// waits for the first transaction and then does nothing; on SQLite
// writers are serialised.
func (s *Store) ClaimEvent(ctx context.Context, ev *store.Event) (*store.Event, bool, error) {
	if ev.ID == "" || ev.AcceptedAt.IsZero() {
		return nil, false, errors.New("claim event: ID and AcceptedAt are required")
	}
	// An existing record pruned between the INSERT and the read makes the
	// read find nothing; the second try then claims the ID.
	for range 2 {
		got, claimed, err := s.claimEvent(ctx, ev)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, false, fmt.Errorf("claim event %s: %w", ev.ID, err)
		}
		return got, claimed, nil
	}
	return nil, false, fmt.Errorf("claim event %s: pruned while read", ev.ID)
}

func (s *Store) claimEvent(ctx context.Context, ev *store.Event) (*store.Event, bool, error) {
	var (
		got     *store.Event
		claimed bool
	)
	payload, err := s.sealPayload(ev.ID, ev.Payload)
	if err != nil {
		return nil, false, err
	}
	wrapped, err := s.wrapKey(ev.ID, ev.DataKey)
	if err != nil {
		return nil, false, err
	}
	row := []any{ev.ID, ev.Type, ev.Digest, payload, nullIfEmpty(ev.TenantID), ev.AcceptedAt.UnixNano(), ev.TenantIncarnation, wrapped}
	if s.dialect.WritableCTEs {
		claimed, err = claimInStatement(ctx, s.write, row, ev.Deliveries)
		if err == nil && !claimed {
			got, err = s.readEvent(ctx, s.write, ev.ID)
		}
	} else {
		err = s.inTx(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, insertEventSQL+` ON CONFLICT (event_id) DO NOTHING`, row...)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			if claimed = n == 1; claimed {
				return insertEventDeliveries(ctx, tx, ev.ID, ev.Deliveries)
			}
			got, err = s.readEvent(ctx, tx, ev.ID)
			return err
		})
	}
	if err != nil || !claimed {
		return got, false, err
	}
	out := *ev
	out.DataKey = append([]byte(nil), ev.DataKey...)
	if ev.DataKey == nil {
		out.DataKey = nil
	}
	out.Expunge = nil
	out.Deliveries = append([]store.EventDelivery(nil), ev.Deliveries...)
	out.AcceptedAt = fromNanos(ev.AcceptedAt.UnixNano())
	return &out, true, nil
}

// insertEventSQL inserts an event's row: the values of insertColumns.
const insertEventSQL = `INSERT INTO hookd_events (` + insertColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`

// claimSQL claims an event and its deliveries in one statement (a
// statement is its own transaction): the event's row unless its ID is
// taken, and then the deliveries, given as three arrays (seq, endpoint,
// delivery ID). It returns 1 when the event was claimed, 0 when the ID
// was taken. A concurrent claim of the same ID waits for the first to
// commit, as in a transaction.
const claimSQL = `WITH ev AS (` + insertEventSQL + ` ON CONFLICT (event_id) DO NOTHING RETURNING event_id),
	ds AS (INSERT INTO hookd_event_deliveries (event_id, seq, endpoint_id, delivery_id)
		SELECT ev.event_id, d.seq, d.endpoint_id, d.delivery_id
		FROM ev, unnest($9::BIGINT[], $10::TEXT[], $11::TEXT[]) AS d (seq, endpoint_id, delivery_id))
	SELECT count(*) FROM ev`

// claimInStatement runs claimSQL with row (the event's insertColumns
// values) and ds, and says whether the event was claimed.
func claimInStatement(ctx context.Context, db *sql.DB, row []any, ds []store.EventDelivery) (bool, error) {
	seqs := make([]int64, len(ds))
	endpoints := make([]string, len(ds))
	ids := make([]string, len(ds))
	for i, d := range ds {
		seqs[i], endpoints[i], ids[i] = int64(i), d.EndpointID, d.ID
	}
	var n int
	if err := db.QueryRowContext(ctx, claimSQL, append(row, seqs, endpoints, ids)...).Scan(&n); err != nil {
		return false, err
	}
	return n == 1, nil
}

func insertEventDeliveries(ctx context.Context, tx *sql.Tx, eventID string, ds []store.EventDelivery) error {
	for start := 0; start < len(ds); start += deliveryRowsPerInsert {
		var (
			a      = args{eventID}
			values []string
		)
		for i, d := range ds[start:min(len(ds), start+deliveryRowsPerInsert)] {
			values = append(values, "($1, "+a.add(start+i)+", "+a.add(d.EndpointID)+", "+a.add(d.ID)+")")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO hookd_event_deliveries (event_id, seq, endpoint_id, delivery_id)
			VALUES `+strings.Join(values, ", "), a...); err != nil {
			return err
		}
	}
	return nil
}

// GetEvent returns the event with its payload and deliveries, or
// store.ErrNotFound.
func (s *Store) GetEvent(ctx context.Context, id string) (*store.Event, error) {
	ev, err := s.readEvent(ctx, s.read, id)
	if errors.Is(err, sql.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get event %s: %w", id, err)
	}
	return ev, nil
}

// querier is a *sql.DB or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readEvent reads one event and its deliveries, or sql.ErrNoRows.
func (s *Store) readEvent(ctx context.Context, q querier, id string) (*store.Event, error) {
	ev, err := scanEvent(q.QueryRowContext(ctx, `SELECT `+eventColumns+` FROM hookd_events WHERE event_id = $1`, id))
	if err != nil {
		return nil, err
	}
	if ev.Payload, err = s.openPayload(id, ev.Payload); err != nil {
		return nil, err
	}
	if ev.DataKey, err = s.unwrapKey(id, ev.DataKey); err != nil {
		return nil, err
	}
	if err := readDeliveries(ctx, q, map[string]*store.Event{id: ev}); err != nil {
		return nil, err
	}
	return ev, nil
}

// readDeliveries fills in the deliveries of the events, keyed by ID, in
// fan-out order.
func readDeliveries(ctx context.Context, q querier, events map[string]*store.Event) error {
	if len(events) == 0 {
		return nil
	}
	var (
		a   args
		ids []string
	)
	for id := range events {
		ids = append(ids, a.add(id))
	}
	rows, err := q.QueryContext(ctx, `SELECT event_id, endpoint_id, delivery_id FROM hookd_event_deliveries
		WHERE event_id IN (`+strings.Join(ids, ", ")+`) ORDER BY event_id, seq`, a...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			eventID string
			d       store.EventDelivery
		)
		if err := rows.Scan(&eventID, &d.EndpointID, &d.ID); err != nil {
			return err
		}
		if ev := events[eventID]; ev != nil {
			ev.Deliveries = append(ev.Deliveries, d)
		}
	}
	return rows.Err()
}

// ListEvents returns up to p.Limit events (50 when zero, at most 500) that
// f selects, newest first after p.Cursor, without their payloads.
func (s *Store) ListEvents(ctx context.Context, f store.EventFilter, p store.Page) ([]*store.Event, string, error) {
	evs, next, err := s.listEvents(ctx, f, p)
	if err != nil {
		return nil, "", fmt.Errorf("list events: %w", err)
	}
	return evs, next, nil
}

func (s *Store) listEvents(ctx context.Context, f store.EventFilter, p store.Page) ([]*store.Event, string, error) {
	before := cursor{created: math.MaxInt64}
	if p.Cursor != "" {
		var err error
		if before, err = parseCursor(p.Cursor); err != nil {
			return nil, "", err
		}
	}
	limit := p.Limit
	if limit <= 0 {
		limit = store.DefaultPageSize
	}
	limit = min(limit, store.MaxPageSize)

	var a args
	where := []string{"(accepted_at, event_id) < (" + a.add(before.created) + ", " + a.add(before.id) + ")"}
	switch prefix, wildcard, all := f.TypePrefix(); {
	case all:
	case wildcard:
		where = append(where, "length(type) > "+a.add(len(prefix))+" AND substr(type, 1, "+a.add(len(prefix))+") = "+a.add(prefix))
	default:
		where = append(where, "type = "+a.add(prefix))
	}
	if !f.Since.IsZero() {
		where = append(where, "accepted_at >= "+a.add(f.Since.UnixNano()))
	}
	if !f.Until.IsZero() {
		where = append(where, "accepted_at <= "+a.add(f.Until.UnixNano()))
	}
	if f.Tenant != nil {
		switch {
		case f.Tenant.All:
		case f.Tenant.ID == "":
			where = append(where, "tenant_id IS NULL")
		default:
			where = append(where, "tenant_id = "+a.add(f.Tenant.ID)+" AND tenant_incarnation = "+a.add(f.Tenant.Incarnation))
		}
	}
	if f.EndpointID != "" {
		where = append(where, "EXISTS (SELECT 1 FROM hookd_event_deliveries d WHERE d.event_id = e.event_id AND d.endpoint_id = "+a.add(f.EndpointID)+")")
	}
	query := `SELECT ` + listColumns + ` FROM hookd_events e WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY accepted_at DESC, event_id DESC LIMIT ` + a.add(limit+1)
	evs, err := s.queryEvents(ctx, query, a...)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(evs) > limit {
		evs = evs[:limit]
		last := evs[limit-1]
		next = cursor{created: last.AcceptedAt.UnixNano(), id: last.ID}.String()
	}
	byID := make(map[string]*store.Event, len(evs))
	for _, ev := range evs {
		byID[ev.ID] = ev
	}
	return evs, next, readDeliveries(ctx, s.read, byID)
}

func (s *Store) queryEvents(ctx context.Context, query string, a ...any) ([]*store.Event, error) {
	return queryRows(ctx, s.read, scanEvent, query, a...)
}

// PruneEvents deletes, in batches, the events accepted before before and,
// by cascade, their deliveries.
func (s *Store) PruneEvents(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		res, err := s.write.ExecContext(ctx, `DELETE FROM hookd_events WHERE event_id IN (
			SELECT event_id FROM hookd_events WHERE accepted_at < $1 ORDER BY accepted_at LIMIT $2)`,
			before.UnixNano(), pruneBatch)
		if err != nil {
			return total, fmt.Errorf("prune events: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, fmt.Errorf("prune events: %w", err)
		}
		total += n
		if n < pruneBatch {
			return total, nil
		}
	}
}

// scanEvent reads a row of eventColumns; DataKey is left wrapped.
func scanEvent(sc scanner) (*store.Event, error) {
	var (
		ev       store.Event
		tenant   sql.NullString
		accepted int64
		expunged sql.NullInt64
		x        store.Expunge
	)
	if err := sc.Scan(&ev.ID, &ev.Type, &ev.Digest, &ev.Payload, &tenant, &accepted, &ev.TenantIncarnation, &ev.DataKey,
		&expunged, &x.By, &x.Reason, &x.Keyless); err != nil {
		return nil, err
	}
	ev.TenantID, ev.AcceptedAt = tenant.String, fromNanos(accepted)
	if len(ev.DataKey) == 0 {
		ev.DataKey = nil
	}
	if expunged.Valid {
		x.At = fromNanos(expunged.Int64)
		ev.Expunge = &x
	}
	return &ev, nil
}

func nullIfEmpty(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// args collects a query's arguments; add returns the placeholder of the
// one it appends.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}
