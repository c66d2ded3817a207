package reference

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/hookd/hookd/receiver"
)

// counters are the in-process counts since New.
type counters struct {
	requests, accepted, duplicates, quarantined atomic.Int64
	rejected, injected, dropped, failed         atomic.Int64
}

func (c *counters) record(o receiver.Outcome, err error) {
	switch {
	case err != nil:
		c.failed.Add(1)
	case o == receiver.Accepted:
		c.accepted.Add(1)
	case o == receiver.Duplicate:
		c.duplicates.Add(1)
	case o == receiver.Quarantined:
		c.quarantined.Add(1)
	}
}

// Stats is what GET /stats answers. Request counts are since the receiver
// started; Effects and Inbox are read from the database.
type Stats struct {
	// Requests counts webhook requests seen, whatever their fate.
	Requests    int64 `json:"requests"`
	Accepted    int64 `json:"accepted"`
	Duplicates  int64 `json:"duplicates"`
	Quarantined int64 `json:"quarantined"`
	// Rejected counts requests refused with 401 or 413.
	Rejected int64 `json:"rejected"`
	// InjectedFailures counts FailFirst and AlwaysFail answers.
	InjectedFailures int64 `json:"injected_failures"`
	// Dropped counts connections closed after a commit.
	Dropped int64 `json:"dropped"`
	// Errors counts deliveries the inbox failed to record (answered 500).
	Errors int64 `json:"errors"`
	// Effects is the number of business effects per delivery ID.
	Effects map[string]int `json:"effects"`
	// Inbox counts the inbox rows by state, and the quarantine.
	Inbox receiver.Stats `json:"inbox"`
}

// Requests returns how many webhook requests the receiver has seen.
func (r *Receiver) Requests() int64 { return r.counts.requests.Load() }

// Duplicates returns how many deliveries were answered as duplicates.
func (r *Receiver) Duplicates() int64 { return r.counts.duplicates.Load() }

// Quarantined returns how many deliveries were quarantined.
func (r *Receiver) Quarantined() int64 { return r.counts.quarantined.Load() }

// Effects returns how many business effects exist for delivery id: 1 for a
// delivery received once or many times, 0 for one never committed.
func (r *Receiver) Effects(ctx context.Context, id string) (int, error) {
	var n int
	if err := r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM effects WHERE delivery_id = ?`, id).Scan(&n); err != nil {
		return 0, fmt.Errorf("count effects of %s: %w", id, err)
	}
	return n, nil
}

// Stats returns all counts.
func (r *Receiver) Stats(ctx context.Context) (Stats, error) {
	s := Stats{
		Requests:         r.counts.requests.Load(),
		Accepted:         r.counts.accepted.Load(),
		Duplicates:       r.counts.duplicates.Load(),
		Quarantined:      r.counts.quarantined.Load(),
		Rejected:         r.counts.rejected.Load(),
		InjectedFailures: r.counts.injected.Load(),
		Dropped:          r.counts.dropped.Load(),
		Errors:           r.counts.failed.Load(),
		Effects:          map[string]int{},
	}
	rows, err := r.db.QueryContext(ctx, `SELECT delivery_id, COUNT(*) FROM effects GROUP BY delivery_id`)
	if err != nil {
		return s, fmt.Errorf("read effects: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return s, fmt.Errorf("read effects: %w", err)
		}
		s.Effects[id] = n
	}
	if err := rows.Err(); err != nil {
		return s, fmt.Errorf("read effects: %w", err)
	}
	if s.Inbox, err = r.inbox.Stats(ctx); err != nil {
		return s, err
	}
	return s, nil
}

func (r *Receiver) serveStats(w http.ResponseWriter, req *http.Request) {
	s, err := r.Stats(req.Context())
	if err != nil {
		r.log.ErrorContext(req.Context(), "stats", "err", err)
		http.Error(w, "stats unavailable", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s)
}
