package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// migrations are the schema versions in order: migrations[i] takes the
// schema from version i to i+1. Never edit one that has shipped; append.
// "{blob}" stands for Dialect.BlobType. Times are Unix nanoseconds.
var migrations = [][]string{
	{
		`CREATE TABLE hookd_endpoints (
			id TEXT PRIMARY KEY,
			url TEXT NOT NULL,
			description TEXT NOT NULL,
			event_types TEXT NOT NULL,
			enabled BOOLEAN NOT NULL,
			retry_schedule TEXT NOT NULL,
			timeout_ns BIGINT NOT NULL,
			metadata TEXT NOT NULL,
			created_at BIGINT NOT NULL,
			updated_at BIGINT NOT NULL
		)`,
		`CREATE INDEX hookd_endpoints_by_creation ON hookd_endpoints (created_at, id)`,
		`CREATE TABLE hookd_endpoint_secrets (
			endpoint_id TEXT NOT NULL REFERENCES hookd_endpoints (id) ON DELETE CASCADE,
			seq BIGINT NOT NULL,
			ciphertext {blob} NOT NULL,
			created_at BIGINT NOT NULL,
			expires_at BIGINT,
			PRIMARY KEY (endpoint_id, seq)
		)`,
	},
	{
		`CREATE TABLE hookd_circuits (
			endpoint_id TEXT PRIMARY KEY REFERENCES hookd_endpoints (id) ON DELETE CASCADE,
			state TEXT NOT NULL,
			failures BIGINT NOT NULL,
			open_until BIGINT NOT NULL,
			cooldown_ns BIGINT NOT NULL,
			probe_until BIGINT NOT NULL,
			updated_at BIGINT NOT NULL
		)`,
	},
	{
		`CREATE TABLE hookd_endpoint_stats (
			endpoint_id TEXT NOT NULL,
			minute BIGINT NOT NULL,
			attempts BIGINT NOT NULL,
			successes BIGINT NOT NULL,
			l0 BIGINT NOT NULL,
			l1 BIGINT NOT NULL,
			l2 BIGINT NOT NULL,
			l3 BIGINT NOT NULL,
			l4 BIGINT NOT NULL,
			l5 BIGINT NOT NULL,
			l6 BIGINT NOT NULL,
			l7 BIGINT NOT NULL,
			l8 BIGINT NOT NULL,
			l9 BIGINT NOT NULL,
			l10 BIGINT NOT NULL,
			l11 BIGINT NOT NULL,
			l12 BIGINT NOT NULL,
			l13 BIGINT NOT NULL,
			l14 BIGINT NOT NULL,
			l15 BIGINT NOT NULL,
			l16 BIGINT NOT NULL,
			l17 BIGINT NOT NULL,
			PRIMARY KEY (endpoint_id, minute)
		)`,
		`CREATE INDEX hookd_endpoint_stats_by_minute ON hookd_endpoint_stats (minute)`,
		`CREATE TABLE hookd_endpoint_alerts (
			endpoint_id TEXT NOT NULL,
			kind TEXT NOT NULL,
			active BOOLEAN NOT NULL,
			changed_at BIGINT NOT NULL,
			PRIMARY KEY (endpoint_id, kind)
		)`,
	},
	{
		// The event records: the unique key on event_id is what makes one
		// payload win per event ID, across every API process.
		`CREATE TABLE hookd_events (
			event_id TEXT PRIMARY KEY,
			type TEXT NOT NULL,
			digest TEXT NOT NULL,
			payload TEXT NOT NULL,
			tenant_id TEXT,
			accepted_at BIGINT NOT NULL
		)`,
		`CREATE INDEX hookd_events_by_acceptance ON hookd_events (accepted_at, event_id)`,
		// seq keeps the fan-out's order, so a re-post answers the same list.
		`CREATE TABLE hookd_event_deliveries (
			event_id TEXT NOT NULL REFERENCES hookd_events (event_id) ON DELETE CASCADE,
			seq BIGINT NOT NULL,
			endpoint_id TEXT NOT NULL,
			delivery_id TEXT NOT NULL,
			PRIMARY KEY (event_id, seq)
		)`,
		`CREATE INDEX hookd_event_deliveries_by_endpoint ON hookd_event_deliveries (endpoint_id, event_id)`,
	},
	{
		// Tenants own endpoints: deleting one deletes its endpoints (and,
		// by their cascades, their secrets and circuits) and its tokens.
		// Existing endpoints keep a NULL tenant: the platform's own.
		`CREATE TABLE hookd_tenants (
			id TEXT PRIMARY KEY,
			name TEXT NOT NULL,
			metadata TEXT NOT NULL,
			created_at BIGINT NOT NULL,
			updated_at BIGINT NOT NULL,
			tokens_revoked_at BIGINT
		)`,
		`CREATE INDEX hookd_tenants_by_creation ON hookd_tenants (created_at, id)`,
		`CREATE TABLE hookd_tenant_tokens (
			hash TEXT PRIMARY KEY,
			tenant_id TEXT NOT NULL REFERENCES hookd_tenants (id) ON DELETE CASCADE,
			created_at BIGINT NOT NULL,
			expires_at BIGINT NOT NULL
		)`,
		`CREATE INDEX hookd_tenant_tokens_by_tenant ON hookd_tenant_tokens (tenant_id, expires_at)`,
		`ALTER TABLE hookd_endpoints ADD COLUMN tenant_id TEXT REFERENCES hookd_tenants (id) ON DELETE CASCADE`,
		`CREATE INDEX hookd_endpoints_by_tenant ON hookd_endpoints (tenant_id, created_at, id)`,
		`CREATE INDEX hookd_endpoints_matching ON hookd_endpoints (tenant_id, enabled)`,
		// One row counting changes to endpoints: each process's matching
		// cache compares it with the count it loaded at.
		`CREATE TABLE hookd_endpoint_changes (
			id BIGINT PRIMARY KEY,
			version BIGINT NOT NULL
		)`,
		`INSERT INTO hookd_endpoint_changes (id, version) VALUES (1, 0)`,
		`CREATE INDEX hookd_events_by_tenant ON hookd_events (tenant_id, accepted_at, event_id)`,
	},
	{
		// The consumer portal's sign-in links and sessions, stored hashed;
		// deleting a tenant deletes them.
		`CREATE TABLE hookd_portal_links (
			hash TEXT PRIMARY KEY,
			tenant_id TEXT NOT NULL REFERENCES hookd_tenants (id) ON DELETE CASCADE,
			created_at BIGINT NOT NULL,
			expires_at BIGINT NOT NULL
		)`,
		`CREATE INDEX hookd_portal_links_by_tenant ON hookd_portal_links (tenant_id, expires_at)`,
		`CREATE TABLE hookd_portal_sessions (
			hash TEXT PRIMARY KEY,
			tenant_id TEXT NOT NULL REFERENCES hookd_tenants (id) ON DELETE CASCADE,
			created_at BIGINT NOT NULL,
			expires_at BIGINT NOT NULL
		)`,
		`CREATE INDEX hookd_portal_sessions_by_tenant ON hookd_portal_sessions (tenant_id, expires_at)`,
	},
	{
		// Tenant incarnations: a tenant re-created under a deleted one's
		// ID gets a new one, and what the deleted tenant left behind
		// (event records, deliveries in Temporal) carries the old one.
		// Tenants, endpoints and events from before stay "", the
		// incarnation of deliveries without the search attribute.
		`ALTER TABLE hookd_tenants ADD COLUMN incarnation TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE hookd_endpoints ADD COLUMN tenant_incarnation TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE hookd_events ADD COLUMN tenant_incarnation TEXT NOT NULL DEFAULT ''`,
	},
	{
		// An endpoint's custom headers and receiver authentication, one
		// sealed value beside its signing secrets; no row means none.
		`CREATE TABLE hookd_endpoint_credentials (
			endpoint_id TEXT PRIMARY KEY REFERENCES hookd_endpoints (id) ON DELETE CASCADE,
			ciphertext {blob} NOT NULL,
			updated_at BIGINT NOT NULL
		)`,
	},
	{
		// Trace propagation: an endpoint that opts in receives the W3C
		// traceparent of each attempt; off for every endpoint from before.
		`ALTER TABLE hookd_endpoints ADD COLUMN propagate_trace BOOLEAN NOT NULL DEFAULT FALSE`,
	},
	{
		// Content filters: an endpoint's CEL expression over the event's
		// payload; "" (every endpoint from before) filters nothing.
		`ALTER TABLE hookd_endpoints ADD COLUMN content_filter TEXT NOT NULL DEFAULT ''`,
	},
	{
		// Portal link options: the lifetime of the session a link opens
		// (0: the portal's default) and the capabilities a link and its
		// session lack, comma-separated ("": none).
		`ALTER TABLE hookd_portal_links ADD COLUMN session_ttl BIGINT NOT NULL DEFAULT 0`,
		`ALTER TABLE hookd_portal_links ADD COLUMN denied TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE hookd_portal_sessions ADD COLUMN denied TEXT NOT NULL DEFAULT ''`,
	},
	{
		// Signing profiles: an endpoint's signature scheme and header
		// names as JSON; "" (every endpoint from before) is Standard
		// Webhooks.
		`ALTER TABLE hookd_endpoints ADD COLUMN signing_profile TEXT NOT NULL DEFAULT ''`,
	},
	{
		// Auto-disable: why a disabled endpoint is ("" for those from
		// before, shown as manual), and since when its attempts have
		// failed without a success (0: not failing).
		`ALTER TABLE hookd_endpoints ADD COLUMN disabled_reason TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE hookd_circuits ADD COLUMN failing_since BIGINT NOT NULL DEFAULT 0`,
	},
	{
		// Rate limits: an endpoint's attempts a second and burst (0: no
		// limit, every endpoint from before), when they took their values,
		// and the theoretical arrival time of its next slot (GCRA), which
		// every worker reserves from.
		`ALTER TABLE hookd_endpoints ADD COLUMN rate_per_second BIGINT NOT NULL DEFAULT 0`,
		`ALTER TABLE hookd_endpoints ADD COLUMN rate_burst BIGINT NOT NULL DEFAULT 0`,
		`ALTER TABLE hookd_endpoints ADD COLUMN rate_since BIGINT NOT NULL DEFAULT 0`,
		`CREATE TABLE hookd_rate_slots (
			endpoint_id TEXT PRIMARY KEY REFERENCES hookd_endpoints (id) ON DELETE CASCADE,
			since BIGINT NOT NULL,
			tat BIGINT NOT NULL
		)`,
	},
	{
		// Hourly attempt totals, kept longer than the minutes (a week's
		// chart), with the transient failures counted apart. The minutes
		// already stored seed it; their failures count as permanent.
		`CREATE TABLE hookd_endpoint_stats_hourly (
			endpoint_id TEXT NOT NULL,
			hour BIGINT NOT NULL,
			attempts BIGINT NOT NULL,
			successes BIGINT NOT NULL,
			retryable BIGINT NOT NULL,
			PRIMARY KEY (endpoint_id, hour)
		)`,
		`CREATE INDEX hookd_endpoint_stats_hourly_by_hour ON hookd_endpoint_stats_hourly (hour)`,
		`INSERT INTO hookd_endpoint_stats_hourly (endpoint_id, hour, attempts, successes, retryable)
			SELECT endpoint_id, (minute / 3600000000000) * 3600000000000, SUM(attempts), SUM(successes), 0
			FROM hookd_endpoint_stats GROUP BY endpoint_id, (minute / 3600000000000) * 3600000000000`,
	},
	{
		// Portal branding: the platform's settings (one row, id 1) and a
		// tenant's overrides of name and logo. A logo is a URL or a
		// stored image (type, bytes and their SHA-256); "" is none.
		`CREATE TABLE hookd_portal_settings (
			id BIGINT PRIMARY KEY,
			product_name TEXT NOT NULL,
			logo_url TEXT NOT NULL,
			logo_type TEXT NOT NULL,
			logo_image {blob},
			logo_digest TEXT NOT NULL,
			accent_color TEXT NOT NULL,
			theme TEXT NOT NULL,
			support_url TEXT NOT NULL,
			updated_at BIGINT NOT NULL
		)`,
		`CREATE TABLE hookd_tenant_branding (
			tenant_id TEXT PRIMARY KEY REFERENCES hookd_tenants (id) ON DELETE CASCADE,
			product_name TEXT NOT NULL,
			logo_url TEXT NOT NULL,
			logo_type TEXT NOT NULL,
			logo_image {blob},
			logo_digest TEXT NOT NULL,
			updated_at BIGINT NOT NULL
		)`,
	},
	{
		// The event-type catalog: a schema is JSON text (NULL: none), the
		// examples a JSON array. One row counts changes to it, as for the
		// endpoints, for each process's cache of compiled schemas.
		`CREATE TABLE hookd_event_types (
			name TEXT PRIMARY KEY,
			description TEXT NOT NULL,
			schema_json TEXT,
			examples TEXT NOT NULL,
			deprecated BOOLEAN NOT NULL,
			created_at BIGINT NOT NULL,
			updated_at BIGINT NOT NULL
		)`,
		`CREATE TABLE hookd_event_type_changes (
			id BIGINT PRIMARY KEY,
			version BIGINT NOT NULL
		)`,
		`INSERT INTO hookd_event_type_changes (id, version) VALUES (1, 0)`,
	},
	{
		// Per-event data keys and expunge: an event's key, wrapped by the
		// master key (NULL for events from before, and once expunged), and
		// when, by whom and why it was expunged (NULL: it was not).
		// expunged_keyless says it had no key to destroy.
		`ALTER TABLE hookd_events ADD COLUMN data_key {blob}`,
		`ALTER TABLE hookd_events ADD COLUMN expunged_at BIGINT`,
		`ALTER TABLE hookd_events ADD COLUMN expunged_by TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE hookd_events ADD COLUMN expunge_reason TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE hookd_events ADD COLUMN expunged_keyless BOOLEAN NOT NULL DEFAULT FALSE`,
	},
	{
		// The outbox of operational events: each written in the
		// transaction of the change it announces, due at due_at (a claim
		// leases it by moving due_at on), deleted once published.
		`CREATE TABLE hookd_outbox (
			id TEXT PRIMARY KEY,
			type TEXT NOT NULL,
			tenant_id TEXT NOT NULL,
			tenant_incarnation TEXT NOT NULL,
			body TEXT NOT NULL,
			created_at BIGINT NOT NULL,
			due_at BIGINT NOT NULL,
			attempts BIGINT NOT NULL,
			last_error TEXT NOT NULL
		)`,
		`CREATE INDEX hookd_outbox_by_due ON hookd_outbox (due_at, id)`,
	},
}

// migrate brings the schema to the newest version in one transaction, recording
// each version applied in hookd_schema_migrations.
func (s *Store) migrate(ctx context.Context) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if s.dialect.MigrationLock != "" {
			if _, err := tx.ExecContext(ctx, s.dialect.MigrationLock); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS hookd_schema_migrations (
			version BIGINT PRIMARY KEY,
			applied_at BIGINT NOT NULL
		)`); err != nil {
			return err
		}
		var current int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM hookd_schema_migrations`).Scan(&current); err != nil {
			return err
		}
		if current > len(migrations) {
			return fmt.Errorf("database schema version %d is newer than this hookd supports (%d)", current, len(migrations))
		}
		for v := current; v < len(migrations); v++ {
			if err := s.applyMigration(ctx, tx, v+1, migrations[v]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

func (s *Store) applyMigration(ctx context.Context, tx *sql.Tx, version int, stmts []string) error {
	for _, stmt := range stmts {
		stmt = strings.ReplaceAll(stmt, "{blob}", s.dialect.BlobType)
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("version %d: %w", version, err)
		}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO hookd_schema_migrations (version, applied_at) VALUES ($1, $2)`,
		version, time.Now().UnixNano())
	if err != nil {
		return fmt.Errorf("version %d: %w", version, err)
	}
	return nil
}
