package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/hookd/hookd/internal/contentfilter"
	"github.com/hookd/hookd/internal/store"
)

// Matching runs once per event, so it must not read every endpoint each
// time. Each process keeps, per tenant, the tenant's endpoints as
// of a version of the hookd_endpoint_changes counter, which every change
// to an endpoint increments in its own transaction. An event costs at
// most one read of the counters, shared with the events ingested beside
// it (versionReads); only after a change does a tenant's set load again, through the (tenant_id, enabled) index. Disabled endpoints
// match too: disabling pauses an endpoint, so its deliveries are created
// and held until it is enabled again. Processes sharing a
// database see each other's changes at their next event.
//
// The cache also holds each endpoint's content filter compiled
// (store.Endpoint.FilterProgram): a set read again keeps the programs of
// the endpoints unchanged since the last read, so a filter compiles once
// per version of its endpoint, not once per event nor per change to
// another endpoint.

// maxCachedTenants bounds the tenants whose endpoints a process keeps.
const maxCachedTenants = 1024

const bumpVersionSQL = `UPDATE hookd_endpoint_changes SET version = version + 1 WHERE id = 1`

// matchCache holds each tenant's endpoints ("" for the endpoints
// without a tenant) with the version they were read at.
type matchCache struct {
	mu       sync.Mutex
	byTenant map[string]cachedEndpoints
}

type cachedEndpoints struct {
	version int64
	eps     []*store.Endpoint
}

func (c *matchCache) get(tenant string, version int64) ([]*store.Endpoint, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byTenant[tenant]
	return e.eps, ok && e.version == version
}

func (c *matchCache) put(tenant string, version int64, eps []*store.Endpoint) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byTenant == nil {
		c.byTenant = map[string]cachedEndpoints{}
	}
	if _, ok := c.byTenant[tenant]; !ok && len(c.byTenant) >= maxCachedTenants {
		for k := range c.byTenant { // evict one: any will do
			delete(c.byTenant, k)
			break
		}
	}
	c.byTenant[tenant] = cachedEndpoints{version: version, eps: eps}
}

// MatchingEndpoints returns the endpoints of the tenant ("" for those
// without a tenant) whose filter accepts eventType, in creation order,
// disabled ones included (their deliveries wait until they are enabled).
// The endpoints are copies the caller may change.
func (s *Store) MatchingEndpoints(ctx context.Context, tenantID, eventType string) ([]*store.Endpoint, error) {
	eps, err := s.tenantEndpoints(ctx, tenantID)
	if err != nil {
		return nil, fmt.Errorf("matching endpoints: %w", err)
	}
	var matched []*store.Endpoint
	for _, ep := range eps {
		if ep.Matches(eventType) {
			cp := *ep
			matched = append(matched, &cp)
		}
	}
	return matched, nil
}

// tenantEndpoints returns the tenant's endpoints from the cache,
// reading them again when an endpoint changed since they were read. The
// version is read first, so a set is never kept under a newer version
// than the one it reflects.
func (s *Store) tenantEndpoints(ctx context.Context, tenantID string) ([]*store.Endpoint, error) {
	v, err := s.versions.get(ctx)
	if err != nil {
		return nil, err
	}
	version := v.endpoints
	if eps, ok := s.matches.get(tenantID, version); ok {
		return eps, nil
	}
	where, args := tenantClause(store.OfTenant(tenantID), 0)
	eps, err := s.queryEndpoints(ctx, `SELECT `+endpointColumns+` FROM hookd_endpoints
		WHERE TRUE`+where+` ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, err
	}
	previous, _ := s.matches.get(tenantID, version)
	compileFilters(eps, previous)
	s.matches.put(tenantID, version, eps)
	return eps, nil
}

// compileFilters sets the FilterProgram of eps, taking it from the same
// version of the endpoint in previous when there is one. A filter that
// does not compile (the API refuses those; a newer CEL might not) keeps a
// nil program, which ingest counts as a failed evaluation.
func compileFilters(eps, previous []*store.Endpoint) {
	var known map[string]*store.Endpoint
	for _, ep := range eps {
		if ep.Filter == "" {
			continue
		}
		if known == nil {
			known = make(map[string]*store.Endpoint, len(previous))
			for _, p := range previous {
				known[p.ID] = p
			}
		}
		if p, ok := known[ep.ID]; ok && p.FilterProgram != nil && p.Filter == ep.Filter && p.UpdatedAt.Equal(ep.UpdatedAt) {
			ep.FilterProgram = p.FilterProgram
			continue
		}
		ep.FilterProgram, _ = contentfilter.Compile(ep.Filter)
	}
}

// bumpEndpointsVersion counts a change to the endpoints; call it in the
// change's transaction.
func bumpEndpointsVersion(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, bumpVersionSQL); err != nil {
		return fmt.Errorf("count endpoint change: %w", err)
	}
	return nil
}
