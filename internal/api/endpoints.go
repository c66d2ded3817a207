package api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/circuit"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/opevents"
	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/signing"
)

// toJSON is an endpoint as the API shows it: its headers and auth
// masked, its TLS without the key, its signing profile with defaults
// filled in. Secret and Warnings are set by create and update alone.
func toJSON(ep *store.Endpoint) EndpointView {
	out := EndpointView{
		ID: ep.ID, TenantID: ep.TenantID, URL: ep.URL, Description: ep.Description, EventTypes: ep.EventTypes, Filter: ep.Filter,
		Enabled: ep.Enabled, Metadata: ep.Metadata, CreatedAt: ep.CreatedAt, UpdatedAt: ep.UpdatedAt,
		PropagateTrace: ep.PropagateTrace, Signing: signingOut(signingView(ep.Signing)), RateLimit: rateLimitView(ep.RateLimit),
	}
	for _, d := range delivery.Schedule(ep.RetrySchedule) {
		out.RetrySchedule = append(out.RetrySchedule, d.String())
	}
	out.Timeout = delivery.AttemptTimeout(ep.Timeout).String()
	out.Headers, out.Auth = credentialsView(ep.Credentials)
	if ep.Credentials != nil {
		out.TLS = tlsView(ep.Credentials.TLS)
	}
	if !ep.Enabled {
		out.DisabledReason = wire.EndpointDisabledReason(cmp.Or(ep.DisabledReason, opevents.DisabledManual))
	}
	if out.EventTypes == nil {
		out.EventTypes = []string{}
	}
	if out.Metadata == nil {
		out.Metadata = wire.Metadata{}
	}
	return out
}

// apply validates the patch and applies it to ep. Fields left out (nil,
// or a zero wire.Patch) stay as they are (update) or keep their defaults
// (create).
func (s *Server) apply(p wire.EndpointPatch, ep *store.Endpoint) error {
	if p.URL != nil {
		if err := s.validateURL(*p.URL); err != nil {
			return err
		}
		ep.URL = *p.URL
	}
	if p.Description != nil {
		if len(*p.Description) > 1024 {
			return invalid("description", "must be at most 1024 characters")
		}
		ep.Description = *p.Description
	}
	if p.EventTypes != nil {
		if len(*p.EventTypes) > 100 {
			return invalid("event_types", "must list at most 100 types")
		}
		if err := validateFilter(*p.EventTypes); err != nil {
			return err
		}
		ep.EventTypes = *p.EventTypes
	}
	if !p.Filter.IsZero() {
		filter, _ := p.Filter.Value() // null removes it, as "" does
		if err := validateContentFilter(filter); err != nil {
			return err
		}
		ep.Filter = filter
	}
	if p.Enabled != nil && *p.Enabled != ep.Enabled {
		ep.Enabled, ep.DisabledReason = *p.Enabled, ""
		if !ep.Enabled {
			ep.DisabledReason = opevents.DisabledManual
		}
	}
	if p.PropagateTrace != nil {
		ep.PropagateTrace = *p.PropagateTrace
	}
	if p.RetrySchedule != nil {
		schedule, err := parseSchedule(*p.RetrySchedule)
		if err != nil {
			return err
		}
		ep.RetrySchedule = schedule
	}
	if p.Timeout != nil {
		d, err := time.ParseDuration(*p.Timeout)
		if err != nil {
			return invalid("timeout", "must be a duration such as \"15s\"")
		}
		if err := delivery.ValidateTimeout(d); err != nil {
			return invalid("timeout", "%s", err.Error())
		}
		ep.Timeout = d
	}
	if p.Metadata != nil {
		if err := validateMetadata(*p.Metadata); err != nil {
			return err
		}
		ep.Metadata = *p.Metadata
	}
	if !p.Signing.IsZero() {
		v, ok := p.Signing.Value()
		if !ok {
			return invalid("signing", "%s", signingNotObject)
		}
		profile, err := ValidateSigning(SigningOf(v))
		if err != nil {
			return err
		}
		ep.Signing = profile
	}
	if err := applyRateLimit(p.RateLimit, ep); err != nil {
		return err
	}
	if p.Headers != nil || !p.Auth.IsZero() || !p.TLS.IsZero() {
		if err := s.applyCredentials(p, ep); err != nil {
			return err
		}
	}
	return checkSigningHeaders(p, ep)
}

func parseSchedule(in []string) ([]time.Duration, error) {
	out := make([]time.Duration, 0, len(in))
	for i, v := range in {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, invalid("retry_schedule", "interval %d (%q) must be a duration such as \"30s\"", i, v)
		}
		out = append(out, d)
	}
	if err := delivery.ValidateSchedule(out); err != nil {
		return nil, invalid("retry_schedule", "%s", err.Error())
	}
	return out, nil
}

func (s *Server) createEndpoint(w http.ResponseWriter, r *http.Request) {
	var p wire.EndpointCreate
	if err := s.decodeEndpoint(w, r, &p); err != nil {
		s.writeError(w, r, err)
		return
	}
	out, err := s.CreateEndpoint(r.Context(), p)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, out)
}

// CreateEndpoint creates an endpoint in the scope of ctx with a new
// signing secret, which the answer shows this once.
func (s *Server) CreateEndpoint(ctx context.Context, p EndpointCreate) (EndpointView, error) {
	if err := permit(ctx, authz.ManageEndpoints); err != nil {
		return EndpointView{}, err
	}
	now := s.now().UTC()
	ep := &store.Endpoint{ID: delivery.NewID(delivery.PrefixEndpoint), Enabled: true, CreatedAt: now, UpdatedAt: now,
		Signing: s.defaultSigning}
	err := s.apply(createPatch(p), ep)
	if err == nil {
		ep.TenantID, err = s.endpointOwner(ctx, p.TenantID)
	}
	if err != nil {
		return EndpointView{}, err
	}
	secret, err := signing.NewSecret()
	if err != nil {
		return EndpointView{}, err
	}
	created := endpointEvent(ctx, opevents.EndpointCreated, ep, "", nil)
	if err := s.store.CreateEndpointWithin(ctx, ep, secret, s.quotas.endpointsPerTenant, created); err != nil {
		return EndpointView{}, tenantInvalid(s.quotas.endpointLimitReached(err))
	}
	s.log.Info("endpoint created", "endpoint_id", ep.ID, "tenant_id", ep.TenantID)
	out := toJSON(ep)
	out.Secret = secret
	out.Warnings = s.typeWarnings(ctx, ep.EventTypes)
	return out, nil
}

// createPatch is a create's body as the patch that sets its fields on a
// new endpoint; its URL is always set ("" is refused as missing).
func createPatch(c wire.EndpointCreate) wire.EndpointPatch {
	return wire.EndpointPatch{
		URL: &c.URL, Description: c.Description, EventTypes: c.EventTypes, Enabled: c.Enabled,
		RetrySchedule: c.RetrySchedule, Timeout: c.Timeout, Metadata: c.Metadata, Filter: c.Filter,
		Headers: c.Headers, Auth: c.Auth, TLS: c.TLS, PropagateTrace: c.PropagateTrace,
		Signing: c.Signing, RateLimit: c.RateLimit,
	}
}

// endpointOwner is the tenant a new endpoint belongs to: the caller's own
// for a tenant token, whatever the body says; for the platform, the
// tenant the body names, which must exist.
func (s *Server) endpointOwner(ctx context.Context, requested *string) (string, error) {
	var want string
	if requested != nil && authz.FromContext(ctx).IsPlatform() {
		if err := validateTenantID("tenant_id", *requested); err != nil {
			return "", err
		}
		want = *requested
	}
	owner, err := s.res.Owner(ctx, want)
	return owner, tenantInvalid(err)
}

// tenantInvalid maps store.ErrTenantNotFound to a 400 naming tenant_id.
func tenantInvalid(err error) error {
	if errors.Is(err, store.ErrTenantNotFound) {
		return invalid("tenant_id", "no such tenant; create it first with PUT /v1/tenants/{id}")
	}
	return err
}

func (s *Server) getEndpoint(w http.ResponseWriter, r *http.Request) {
	ep, err := s.endpoint(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toJSON(ep))
}

// endpoint loads the endpoint named in the path, if the caller's scope
// may see it.
func (s *Server) endpoint(r *http.Request) (*store.Endpoint, error) {
	return s.endpointIn(r.Context(), chi.URLParam(r, "id"))
}

// endpointIn loads the endpoint if the scope of ctx may see it.
func (s *Server) endpointIn(ctx context.Context, id string) (*store.Endpoint, error) {
	ep, err := s.res.Endpoint(ctx, id)
	return ep, notFound(err, "endpoint")
}

// Endpoint returns the endpoint if the scope of ctx may see it.
func (s *Server) Endpoint(ctx context.Context, id string) (EndpointView, error) {
	ep, err := s.endpointIn(ctx, id)
	if err != nil {
		return EndpointView{}, err
	}
	return toJSON(ep), nil
}

func (s *Server) listEndpoints(w http.ResponseWriter, r *http.Request) {
	limit, err := parseLimit(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	eps, next, err := s.ListEndpoints(r.Context(), r.URL.Query().Get("tenant_id"), store.Page{Cursor: r.URL.Query().Get("cursor"), Limit: limit})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, wire.EndpointPage{Data: listOf(eps, same), NextCursor: next})
}

// ListEndpoints returns a page of the endpoints in the scope of ctx, of
// tenantID when it names one, and the next page's cursor.
func (s *Server) ListEndpoints(ctx context.Context, tenantID string, p store.Page) ([]EndpointView, string, error) {
	f, err := s.tenantFilter(ctx, tenantID)
	if err != nil {
		return nil, "", err
	}
	eps, next, err := s.store.ListEndpoints(ctx, f, p)
	err = cursorError(err)
	if err != nil {
		return nil, "", err
	}
	out := []EndpointView{}
	for _, ep := range eps {
		out = append(out, toJSON(ep))
	}
	return out, next, nil
}

// parseLimit reads the limit query parameter of a list: 1 to
// store.MaxPageSize, store.DefaultPageSize when absent.
func parseLimit(r *http.Request) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return store.DefaultPageSize, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > store.MaxPageSize {
		return 0, invalid("limit", "must be an integer from 1 to %d", store.MaxPageSize)
	}
	return n, nil
}

func (s *Server) updateEndpoint(w http.ResponseWriter, r *http.Request) {
	var p wire.EndpointPatch
	if err := s.decodeEndpoint(w, r, &p); err != nil {
		s.writeError(w, r, err)
		return
	}
	out, err := s.UpdateEndpoint(r.Context(), chi.URLParam(r, "id"), p)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// UpdateEndpoint applies the patch to the endpoint, if the scope of ctx
// may see it. A patch that enables a disabled endpoint also wakes the
// deliveries it held, as a recover does, instead of leaving them to their
// next check.
func (s *Server) UpdateEndpoint(ctx context.Context, id string, p EndpointPatch) (EndpointView, error) {
	if err := permit(ctx, authz.ManageEndpoints); err != nil {
		return EndpointView{}, err
	}
	ep, err := s.endpointIn(ctx, id)
	var (
		wasEnabled bool
		wasLimit   *store.RateLimit
	)
	if err == nil {
		wasEnabled, wasLimit = ep.Enabled, ep.RateLimit
		err = s.apply(p, ep)
	}
	if err == nil {
		ep.UpdatedAt = s.now().UTC()
		err = notFound(s.store.UpdateEndpoint(ctx, ep, updateEvents(ctx, ep, changedFields(p), wasEnabled)...), "endpoint")
	}
	if err != nil {
		return EndpointView{}, err
	}
	switch {
	case ep.Enabled && !wasEnabled:
		s.restartFailing(ctx, ep.ID)
		s.wakeHeld(ctx, ep.ID, delivery.RecoverSignal{Reason: "endpoint enabled"}, ep.UpdatedAt)
	case ep.Enabled && rateLimitChanged(wasLimit, ep.RateLimit):
		// The deliveries waiting for their slots take new ones under
		// the new limit, or go at once without one; so do those whose
		// start is still delayed to the slot ingest reserved.
		s.wakeHeld(ctx, ep.ID, delivery.RecoverSignal{Reason: "rate limit changed", Slots: true}, ep.UpdatedAt)
	}
	out := toJSON(ep)
	out.Warnings = s.typeWarnings(ctx, ep.EventTypes)
	return out, nil
}

// restartFailing gives an endpoint enabled again a whole auto-disable
// period before its failures disable it again: it forgets when they
// began (circuit.Breaker.FailingSince). A store that fails leaves it.
func (s *Server) restartFailing(ctx context.Context, endpointID string) {
	_, err := s.store.UpdateCircuit(ctx, endpointID, func(b circuit.Breaker) circuit.Breaker {
		b.FailingSince = time.Time{}
		return b
	})
	if err != nil {
		s.log.Warn("restart the failing period", "endpoint_id", endpointID, "error", err)
	}
}

// wakeHeld wakes the deliveries the endpoint held, with sig saying why:
// it was enabled, or its rate limit changed (wakeBacklog). The change is
// stored either way: a delivery not reached finds it at the end of its
// wait.
func (s *Server) wakeHeld(ctx context.Context, endpointID string, sig delivery.RecoverSignal, at time.Time) {
	sig.By = authz.FromContext(ctx).Actor()
	w, err := s.wakeBacklog(ctx, endpointID, sig, at)
	if err != nil {
		s.log.Warn("wake held deliveries", "endpoint_id", endpointID, "woken", w.Woken, "error", err)
		return
	}
	s.log.Info(sig.Reason, "endpoint_id", endpointID, "by", sig.By, "woken", w.Woken, "paced", w.Paced)
}

func (s *Server) deleteEndpoint(w http.ResponseWriter, r *http.Request) {
	if err := s.DeleteEndpoint(r.Context(), chi.URLParam(r, "id")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// DeleteEndpoint deletes the endpoint, if the scope of ctx may see it.
func (s *Server) DeleteEndpoint(ctx context.Context, id string) error {
	if err := permit(ctx, authz.ManageEndpoints); err != nil {
		return err
	}
	ep, err := s.endpointIn(ctx, id)
	if err == nil {
		ep.UpdatedAt = s.now().UTC()
		err = notFound(s.store.DeleteEndpoint(ctx, ep.ID, endpointEvent(ctx, opevents.EndpointDeleted, ep, "", nil)), "endpoint")
	}
	return err
}

// RotatedSecret is the answer of a secret rotation: the new secret, and
// when the older secrets stop being signed with.
type RotatedSecret = wire.RotatedSecret

func (s *Server) rotateSecret(w http.ResponseWriter, r *http.Request) {
	var body wire.SecretRotate
	if err := s.decode(w, r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	out, err := s.RotateSecret(r.Context(), chi.URLParam(r, "id"), body.Overlap)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// RotateSecret gives the endpoint a new signing secret; the older ones
// stay valid for overlap (a duration such as "24h"; nil means 24h).
func (s *Server) RotateSecret(ctx context.Context, id string, overlap *string) (RotatedSecret, error) {
	if err := permit(ctx, authz.RotateSecret); err != nil {
		return RotatedSecret{}, err
	}
	keep := 24 * time.Hour
	if overlap != nil {
		d, err := time.ParseDuration(*overlap)
		if err != nil || d < 0 || d > 30*24*time.Hour {
			return RotatedSecret{}, invalid("overlap", "must be a duration from 0s to 720h")
		}
		keep = d
	}
	ep, err := s.endpointIn(ctx, id)
	if err != nil {
		return RotatedSecret{}, err
	}
	secret, err := signing.NewSecret()
	if err == nil {
		err = s.store.RotateSecret(ctx, ep.ID, secret, s.now().UTC(), keep)
	}
	if err != nil {
		return RotatedSecret{}, err
	}
	s.log.Info("endpoint secret rotated", "endpoint_id", ep.ID, "overlap", keep)
	return RotatedSecret{EndpointID: ep.ID, Secret: secret, PreviousExpiresAt: s.now().UTC().Add(keep)}, nil
}

// EndpointSecret returns the endpoint's newest signing secret, if the
// scope of ctx may see the endpoint.
func (s *Server) EndpointSecret(ctx context.Context, id string) (string, error) {
	if err := permit(ctx, authz.RevealSecret); err != nil {
		return "", err
	}
	ep, err := s.endpointIn(ctx, id)
	if err != nil {
		return "", err
	}
	secrets, err := s.store.Secrets(ctx, ep.ID, s.now())
	if err != nil {
		return "", err
	}
	if len(secrets) == 0 {
		return "", &Error{Code: CodeNotFound, Message: "endpoint has no valid secret"}
	}
	return secrets[0].Value, nil
}

// decode reads a small JSON request body into v. An empty body is an empty
// object.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	return s.decodeUpTo(w, r, 64<<10, v)
}

// decodeEndpoint reads the body of an endpoint's create or update into v
// (a *wire.EndpointCreate or *wire.EndpointPatch) as decode does, its
// object fields checked by their own rules (endpointMembers).
func (s *Server) decodeEndpoint(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := readBody(w, r, 64<<10)
	if err != nil {
		return err
	}
	return decodeEndpointBody(body, v)
}

// decodeEndpointBody is decodeEndpoint for a body read.
func decodeEndpointBody(body []byte, v any) error {
	if len(body) == 0 {
		body = []byte("{}")
	}
	return decodeChecked(body, endpointMembers, v)
}

// endpointMembers check the members of an endpoint's create or update
// that the generated types alone would refuse vaguely or not at all: an
// unknown member of an object is "<field>.<member>", anything but an
// object (or null where null removes the field) is the field itself.
var endpointMembers = map[string]memberCheck{
	"filter": func(b []byte) ([]byte, error) {
		if json.Unmarshal(b, new(wire.Patch[string])) != nil {
			return nil, invalid("filter", "must be a string")
		}
		return nil, nil
	},
	"auth": func(b []byte) ([]byte, error) {
		return checkObject(b, "auth", "must be an object or null", true, new(wire.EndpointAuth))
	},
	"tls": func(b []byte) ([]byte, error) {
		return checkObject(b, "tls", "must be an object or null", true, new(wire.EndpointTLS))
	},
	"signing": func(b []byte) ([]byte, error) {
		return checkObject(b, "signing", signingNotObject, false, new(wire.SigningProfile))
	},
	"rate_limit": checkRateLimit,
}

// decodeUpTo is decode for a body of at most limit bytes.
func (s *Server) decodeUpTo(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	body, err := readBody(w, r, limit)
	if err != nil {
		return err
	}
	if len(body) == 0 {
		body = []byte("{}")
	}
	return decodeStrict(body, v)
}
