package sqlstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hookd/hookd/store"
)

// endpointColumns is the column list every endpoint query selects, in the
// order scanEndpoint reads and endpointValues writes.
const endpointColumns = `id, url, description, event_types, enabled, retry_schedule, timeout_ns, metadata, created_at, updated_at`

// endpointValues returns ep's column values in endpointColumns order.
func endpointValues(ep *store.Endpoint) ([]any, error) {
	types, err := json.Marshal(nonNil(ep.EventTypes))
	if err != nil {
		return nil, fmt.Errorf("encode event types: %w", err)
	}
	schedule := make([]string, len(ep.RetrySchedule))
	for i, d := range ep.RetrySchedule {
		schedule[i] = d.String()
	}
	retries, err := json.Marshal(schedule)
	if err != nil {
		return nil, fmt.Errorf("encode retry schedule: %w", err)
	}
	meta := ep.Metadata
	if meta == nil {
		meta = map[string]string{}
	}
	metadata, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("encode metadata: %w", err)
	}
	return []any{
		ep.ID, ep.URL, ep.Description, string(types), ep.Enabled, string(retries),
		int64(ep.Timeout), string(metadata), ep.CreatedAt.UnixNano(), ep.UpdatedAt.UnixNano(),
	}, nil
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// scanEndpoint reads one row of endpointColumns.
func scanEndpoint(sc scanner) (*store.Endpoint, error) {
	var (
		ep                        store.Endpoint
		types, retries, metadata  string
		timeout, created, updated int64
	)
	if err := sc.Scan(&ep.ID, &ep.URL, &ep.Description, &types, &ep.Enabled, &retries,
		&timeout, &metadata, &created, &updated); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(types), &ep.EventTypes); err != nil {
		return nil, fmt.Errorf("endpoint %s: decode event types: %w", ep.ID, err)
	}
	var schedule []string
	if err := json.Unmarshal([]byte(retries), &schedule); err != nil {
		return nil, fmt.Errorf("endpoint %s: decode retry schedule: %w", ep.ID, err)
	}
	for _, s := range schedule {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("endpoint %s: decode retry schedule: %w", ep.ID, err)
		}
		ep.RetrySchedule = append(ep.RetrySchedule, d)
	}
	if err := json.Unmarshal([]byte(metadata), &ep.Metadata); err != nil {
		return nil, fmt.Errorf("endpoint %s: decode metadata: %w", ep.ID, err)
	}
	if len(ep.EventTypes) == 0 {
		ep.EventTypes = nil
	}
	if len(ep.Metadata) == 0 {
		ep.Metadata = nil
	}
	ep.Timeout = time.Duration(timeout)
	ep.CreatedAt = fromNanos(created)
	ep.UpdatedAt = fromNanos(updated)
	return &ep, nil
}

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
