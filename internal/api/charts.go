package api

import (
	"context"
	"time"

	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/store"
)

// HourlyStore reads the hourly attempt totals (store.Stats).
type HourlyStore interface {
	HourlyStats(ctx context.Context, tenantID, endpointID string, since time.Time) ([]store.StatsHour, error)
	HourlyTotals(ctx context.Context, tenantID string, since time.Time) ([]store.StatsHour, error)
}

// HourlyStats returns the hourly attempt totals from since on of the
// endpoint, if the scope of ctx may see it, or of every endpoint of the
// scope's tenant when endpointID is "" (the platform's own endpoints for
// the platform scope). They come from the stats every process flushes,
// one indexed query, never from Temporal; none without Config.Hours.
func (s *Server) HourlyStats(ctx context.Context, endpointID string, since time.Time) ([]store.StatsHour, error) {
	tenant := authz.FromContext(ctx).TenantID()
	if endpointID != "" {
		ep, err := s.endpointIn(ctx, endpointID)
		if err != nil {
			return nil, err
		}
		tenant = ep.TenantID
	} else if _, err := s.tenantFilter(ctx, ""); err != nil {
		return nil, err
	}
	if s.hours == nil {
		return nil, nil
	}
	return s.hours.HourlyStats(ctx, tenant, endpointID, since)
}

// HourlyTotals returns the hourly attempt totals from since on of every
// endpoint of the scope's tenant summed per hour (EndpointID ""), summed
// by the store.
func (s *Server) HourlyTotals(ctx context.Context, since time.Time) ([]store.StatsHour, error) {
	if _, err := s.tenantFilter(ctx, ""); err != nil || s.hours == nil {
		return nil, err
	}
	return s.hours.HourlyTotals(ctx, authz.FromContext(ctx).TenantID(), since)
}

// EndpointCircuit returns the state of the endpoint's circuit (closed,
// open or half_open), if the scope of ctx may see it: one store read.
func (s *Server) EndpointCircuit(ctx context.Context, id string) (string, error) {
	ep, err := s.endpointIn(ctx, id)
	if err != nil {
		return "", err
	}
	b, err := s.store.Circuit(ctx, ep.ID)
	if err != nil {
		return "", err
	}
	return string(b.State), nil
}

// DeadLettersWaiting counts the dead letters waiting for a redrive in the
// scope of ctx: one visibility count.
func (s *Server) DeadLettersWaiting(ctx context.Context) (int64, error) {
	q, err := s.deadLetterQuery(ctx, deadLetterFilter{TenantID: authz.FromContext(ctx).TenantID()})
	if err != nil {
		return 0, err
	}
	return s.count(ctx, q)
}
