package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"
	"golang.org/x/sync/errgroup"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/store"
)

// statusNotStarted is a recorded delivery Temporal does not have: its
// start was lost (a crash between the record and the starts); posting the
// event again starts it.
const statusNotStarted = "not_started"

// describeConcurrency bounds the deliveries read at once for one event.
const describeConcurrency = 8

// eventOf is an event as GET /v1/events/{id} shows it, but for its
// deliveries' status (deliveryStatuses); lists show it as it is, without
// the payload the store leaves out of them.
func eventOf(ev *store.Event) wire.EventRecord {
	out := wire.EventRecord{EventID: ev.ID, TenantID: ev.TenantID, Type: ev.Type, AcceptedAt: ev.AcceptedAt,
		Deliveries: make([]wire.EventRecordDelivery, len(ev.Deliveries))}
	if ev.Payload != "" {
		out.Payload = json.RawMessage(ev.Payload)
	}
	for i, d := range ev.Deliveries {
		out.Deliveries[i] = wire.EventRecordDelivery{ID: d.ID, EndpointID: d.EndpointID}
	}
	expungeOf(ev, &out)
	return out
}

func (s *Server) getEvent(w http.ResponseWriter, r *http.Request) {
	ev, err := s.event(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := eventOf(ev)
	if err := s.deliveryStatuses(r.Context(), out.Deliveries); err != nil {
		s.writeError(w, r, err)
		return
	}
	expungedStatuses(ev, out.Deliveries)
	writeJSON(w, http.StatusOK, out)
}

// event loads an event record, if the caller's scope may see it.
func (s *Server) event(ctx context.Context, id string) (*store.Event, error) {
	ev, err := s.store.GetEvent(ctx, id)
	if err == nil {
		err = s.res.Owned(ctx, ev.TenantID, ev.TenantIncarnation)
	}
	if err != nil {
		return nil, notFound(err, "event")
	}
	return ev, nil
}

// deliveryStatuses reads each delivery's status from Temporal.
func (s *Server) deliveryStatuses(ctx context.Context, ds []wire.EventRecordDelivery) error {
	errs := make([]error, len(ds))
	var g errgroup.Group
	g.SetLimit(describeConcurrency)
	for i := range ds {
		g.Go(func() error {
			status, err := s.deliveryStatus(ctx, ds[i].ID)
			ds[i].Status, errs[i] = wire.EventRecordDeliveryStatus(status), err
			return nil
		})
	}
	_ = g.Wait() // every status's error is in errs
	return errors.Join(errs...)
}

// deliveryStatus is the status GET /v1/deliveries/{id} would show, read
// from the run's description alone.
func (s *Server) deliveryStatus(ctx context.Context, id string) (string, error) {
	desc, err := s.temporal.DescribeWorkflowExecution(ctx, id, "")
	if temporalNotFound(err) {
		return statusNotStarted, nil
	}
	if err != nil {
		return "", fromTemporal(err, "describe delivery", "")
	}
	return string(runStatus(desc.GetWorkflowExecutionInfo())), nil
}

func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) {
	f, err := eventFilterOf(r.URL.Query())
	if err == nil {
		err = s.scopeEventFilter(r, &f)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	limit, err := parseLimit(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	evs, next, err := s.store.ListEvents(r.Context(), f, store.Page{Cursor: r.URL.Query().Get("cursor"), Limit: limit})
	err = cursorError(err)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.EventPage{Data: listOf(evs, eventOf), NextCursor: next})
}

// scopeEventFilter confines an event filter to the caller's scope: its
// tenant_id resolved, and in a tenant scope an endpoint_id that must be
// the tenant's (else 404).
func (s *Server) scopeEventFilter(r *http.Request, f *store.EventFilter) error {
	tf, err := s.tenantFilter(r.Context(), r.URL.Query().Get("tenant_id"))
	if err != nil {
		return err
	}
	f.Tenant = &tf
	if f.EndpointID != "" {
		return s.checkEndpointFilter(r.Context(), f.EndpointID)
	}
	return nil
}

// eventFilterOf reads and checks the filters of GET /v1/events.
func eventFilterOf(q url.Values) (store.EventFilter, error) {
	f := store.EventFilter{Type: q.Get("type"), EndpointID: q.Get("endpoint_id")}
	if f.Type != "" && f.Type != "*" {
		if err := validateEventType("type", strings.TrimSuffix(f.Type, ".*")); err != nil {
			return f, err
		}
	}
	if f.EndpointID != "" && !safeValue.MatchString(f.EndpointID) {
		return f, invalid("endpoint_id", "contains characters that are not allowed")
	}
	var err error
	if f.Since, err = parseTime("since", q.Get("since")); err != nil {
		return f, err
	}
	if f.Until, err = parseTime("until", q.Get("until")); err != nil {
		return f, err
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && f.Since.After(f.Until) {
		return f, invalid("since", "is after until")
	}
	return f, nil
}
