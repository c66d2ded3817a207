package sqlstore

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/signing"
)

// endpointColumns is the column list every endpoint query selects, in the
// order scanEndpoint reads and endpointValues writes.
const endpointColumns = `id, url, description, event_types, enabled, retry_schedule, timeout_ns, metadata, created_at, updated_at, tenant_id, tenant_incarnation, propagate_trace, content_filter, signing_profile, disabled_reason, rate_per_second, rate_burst, rate_since`

// incarnationValue is the index of tenant_incarnation in endpointValues.
const incarnationValue = 11

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
	metadata, err := encodeMetadata(ep.Metadata)
	if err != nil {
		return nil, err
	}
	profile, err := encodeProfile(ep.Signing)
	if err != nil {
		return nil, err
	}
	var rate RateLimitColumns
	if l := ep.RateLimit; l != nil {
		rate = RateLimitColumns{int64(l.PerSecond), int64(max(l.Burst, 1)), unixNano(l.Since)}
	}
	return []any{
		ep.ID, ep.URL, ep.Description, string(types), ep.Enabled, string(retries),
		int64(ep.Timeout), metadata, ep.CreatedAt.UnixNano(), ep.UpdatedAt.UnixNano(),
		nullString(ep.TenantID), ep.TenantIncarnation, ep.PropagateTrace, ep.Filter, profile, ep.DisabledReason,
		rate.PerSecond, rate.Burst, rate.Since,
	}, nil
}

// encodeMetadata returns metadata as JSON text ("{}" when nil).
func encodeMetadata(meta map[string]string) (string, error) {
	if meta == nil {
		meta = map[string]string{}
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return "", fmt.Errorf("encode metadata: %w", err)
	}
	return string(b), nil
}

// decodeMetadata reads JSON text written by encodeMetadata; an empty map
// comes back nil.
func decodeMetadata(text string) (map[string]string, error) {
	var meta map[string]string
	if err := json.Unmarshal([]byte(text), &meta); err != nil {
		return nil, fmt.Errorf("decode metadata: %w", err)
	}
	if len(meta) == 0 {
		return nil, nil
	}
	return meta, nil
}

// encodeProfile returns a signing profile as JSON text, "" for the zero
// one (Standard Webhooks, every endpoint from before profiles).
func encodeProfile(p signing.Profile) (string, error) {
	if p == (signing.Profile{}) {
		return "", nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("encode signing profile: %w", err)
	}
	return string(b), nil
}

// decodeProfile reads text written by encodeProfile.
func decodeProfile(text string) (signing.Profile, error) {
	var p signing.Profile
	if text == "" {
		return p, nil
	}
	if err := json.Unmarshal([]byte(text), &p); err != nil {
		return p, fmt.Errorf("decode signing profile: %w", err)
	}
	return p, nil
}

// RateLimitColumns are an endpoint's rate_per_second, rate_burst and
// rate_since; all zero for an endpoint without a limit.
type RateLimitColumns struct{ PerSecond, Burst, Since int64 }

// nullString stores "" as NULL.
func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// scanEndpoint reads one row of endpointColumns, then any extra columns
// into extra.
func scanEndpoint(sc scanner, extra ...any) (*store.Endpoint, error) {
	var (
		ep                        store.Endpoint
		types, retries, metadata  string
		profile                   string
		timeout, created, updated int64
		tenant                    sql.NullString
		rate                      RateLimitColumns
	)
	if err := sc.Scan(append([]any{&ep.ID, &ep.URL, &ep.Description, &types, &ep.Enabled, &retries,
		&timeout, &metadata, &created, &updated, &tenant, &ep.TenantIncarnation, &ep.PropagateTrace, &ep.Filter, &profile, &ep.DisabledReason,
		&rate.PerSecond, &rate.Burst, &rate.Since}, extra...)...); err != nil {
		return nil, err
	}
	if rate.PerSecond > 0 {
		ep.RateLimit = &store.RateLimit{PerSecond: int(rate.PerSecond), Burst: int(rate.Burst), Since: fromUnixNano(rate.Since)}
	}
	ep.TenantID = tenant.String
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
	var err error
	if ep.Metadata, err = decodeMetadata(metadata); err != nil {
		return nil, fmt.Errorf("endpoint %s: %w", ep.ID, err)
	}
	if ep.Signing, err = decodeProfile(profile); err != nil {
		return nil, fmt.Errorf("endpoint %s: %w", ep.ID, err)
	}
	if len(ep.EventTypes) == 0 {
		ep.EventTypes = nil
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
