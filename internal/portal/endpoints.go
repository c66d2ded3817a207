package portal

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/internal/stats"
	"github.com/hookd/hookd/internal/store"
)

// endpointHealth is an endpoint with its health, when it could be read.
type endpointHealth struct {
	api.EndpointView
	Health  *api.Health
	Figures *stats.Figures
	// Day is its last 24 hours' attempts, for the list's sparkline.
	Day *series
}

func (p *Portal) withHealth(ctx context.Context, ep api.EndpointView) (endpointHealth, error) {
	out := endpointHealth{EndpointView: ep}
	h, err := p.api.EndpointHealth(ctx, ep.ID)
	if err != nil {
		return out, err
	}
	out.Health, out.Figures = &h, h.Figures
	return out, nil
}

// endpointList is the data of the endpoints page.
type endpointList struct {
	Endpoints  []endpointHealth
	NextCursor string
}

func (p *Portal) listEndpoints(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	eps, next, err := p.api.ListEndpoints(ctx, "", store.Page{Cursor: r.URL.Query().Get("cursor"), Limit: 50})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	data := endpointList{Endpoints: make([]endpointHealth, len(eps)), NextCursor: next}
	errs := each(len(eps), func(i int) error {
		var err error
		data.Endpoints[i], err = p.withHealth(ctx, eps[i])
		return err
	})
	v := view{Section: "endpoints", Data: data}
	if v.Unavailable, err = unavailable(errs); err != nil {
		p.fail(w, r, err)
		return
	}
	hours, err := p.api.HourlyStats(ctx, "", p.now().Add(-24*time.Hour))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	byEndpoint := hoursByEndpoint(hours)
	for i := range data.Endpoints {
		day := seriesOf("24 hours", byEndpoint[data.Endpoints[i].ID], p.now(), 24)
		data.Endpoints[i].Day = &day
	}
	p.renderView(w, r, http.StatusOK, "endpoints", v)
}

// endpointForm is the data of the create and edit forms: the fields as
// typed, and the API's validation errors by field.
type endpointForm struct {
	ID                                                   string // "" for a new endpoint
	URL, EventTypes, Description, RetrySchedule, Timeout string
	Errors                                               map[string]string
	// DefaultSchedule and DefaultTimeout are what empty fields mean.
	DefaultSchedule, DefaultTimeout string
	credentialForm
	signingForm
	rateLimitForm
	// Filter is the content filter; ExampleType and ExamplePayload the
	// event "test this filter" tries it on, and FilterResult the outcome.
	Filter, ExampleType, ExamplePayload, FilterResult string
	// PropagateTrace sends the receiver each attempt's trace context.
	PropagateTrace bool
	// Catalog are the event-type catalog's types to tick, Picked those
	// ticked; picks are the ticked names as posted.
	Catalog []catalogPick
	Picked  map[string]bool
	picks   []string
}

func formOf(ep api.EndpointView) endpointForm {
	return endpointForm{credentialForm: credentialFormOf(ep), signingForm: signingFormOf(api.SigningOf(ep.Signing)), rateLimitForm: rateLimitFormOf(ep), ID: ep.ID, URL: ep.URL, EventTypes: strings.Join(ep.EventTypes, ", "),
		Description: ep.Description, RetrySchedule: strings.Join(ep.RetrySchedule, ", "), Timeout: ep.Timeout,
		Filter: ep.Filter, PropagateTrace: ep.PropagateTrace}
}

func readForm(r *http.Request) endpointForm {
	return endpointForm{credentialForm: readCredentialForm(r), signingForm: readSigningForm(r), rateLimitForm: readRateLimitForm(r), URL: strings.TrimSpace(r.PostFormValue("url")), EventTypes: r.PostFormValue("event_types"),
		Description: r.PostFormValue("description"), RetrySchedule: r.PostFormValue("retry_schedule"),
		Timeout: strings.TrimSpace(r.PostFormValue("timeout")),
		Filter:  strings.TrimSpace(r.PostFormValue("filter")), ExampleType: strings.TrimSpace(r.PostFormValue("example_type")),
		ExamplePayload: r.PostFormValue("example_payload"), PropagateTrace: r.PostFormValue("propagate_trace") == "true",
		picks: r.PostForm["event_type_pick"]}
}

// patch is the form as the API's patch. An empty schedule or timeout
// means the default one.
func (f endpointForm) patch() api.EndpointPatch {
	p := f.basePatch()
	f.credentialForm.patch(&p)
	f.signingForm.patch(&p)
	f.rateLimitForm.patch(&p)
	return p
}

// basePatch is patch without the headers and auth.
func (f endpointForm) basePatch() api.EndpointPatch {
	var types []string
	for _, t := range append(f.picked(), fieldsOf(f.EventTypes)...) {
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	schedule := fieldsOf(f.RetrySchedule)
	if len(schedule) == 0 {
		for _, d := range delivery.DefaultSchedule() {
			schedule = append(schedule, d.String())
		}
	}
	timeout := cmp.Or(f.Timeout, delivery.DefaultTimeout.String())
	return api.EndpointPatch{URL: &f.URL, Description: &f.Description, EventTypes: &types, RetrySchedule: &schedule, Timeout: &timeout,
		Filter: wire.Set(f.Filter), PropagateTrace: &f.PropagateTrace}
}

// picked are the catalog's types ticked: as posted, or as fillCatalog
// found them, in the catalog's order.
func (f endpointForm) picked() []string {
	if f.Picked == nil {
		return f.picks
	}
	var out []string
	for _, c := range f.Catalog {
		if f.Picked[c.Name] {
			out = append(out, c.Name)
		}
	}
	return out
}

// fieldsOf splits a list typed with commas or spaces.
func fieldsOf(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' || r == '\r' })
}

// formFields are the API fields the endpoint form shows errors next to.
var formFields = map[string]bool{"tls_client_certificate": true, "tls_client_key": true, "tls_ca": true, "headers": true, "auth": true, "auth_token": true, "auth_username": true, "auth_password": true, "url": true, "description": true, "event_types": true, "retry_schedule": true, "timeout": true,
	"filter": true, "example_payload": true,
	"signing_scheme": true, "signing_header": true, "signing_prefix": true, "signing_encoding": true, "signing_content": true,
	"signing_timestamp_header": true, "signing_delivery_id_header": true, "signing_event_id_header": true,
	"signing_event_type_header": true, "signing_attempt_header": true, "rate_per_second": true, "rate_burst": true}

// showForm renders the form again with err, the API's validation error,
// and every other field's (api.Server.EndpointErrors), each next to its
// field (or above the form for any other field).
func (p *Portal) showForm(w http.ResponseWriter, r *http.Request, f endpointForm, err error) {
	var e *api.Error
	if !errors.As(err, &e) || e.Code != api.CodeInvalid {
		p.fail(w, r, err)
		return
	}
	v := view{Section: "endpoints"}
	f.Errors = map[string]string{}
	for _, fe := range append([]*api.Error{e}, p.api.EndpointErrors(f.patch())...) {
		fe = rateLimitError(signingError(credentialError(fe)))
		switch {
		case formFields[fe.Field]:
			if f.Errors[fe.Field] == "" {
				f.Errors[fe.Field] = fe.Message
			}
		case v.Alert == "":
			v.Alert = fe.Error()
		}
	}
	f.DefaultSchedule, f.DefaultTimeout = defaultSchedule(), delivery.DefaultTimeout.String()
	p.fillCatalog(r.Context(), &f)
	v.Data = f
	p.renderView(w, r, http.StatusBadRequest, "endpointform", v)
}

func defaultSchedule() string {
	var out []string
	for _, d := range delivery.DefaultSchedule() {
		out = append(out, d.String())
	}
	return shortDurations(out)
}

func (p *Portal) newEndpoint(w http.ResponseWriter, r *http.Request) {
	f := endpointForm{DefaultSchedule: defaultSchedule(), DefaultTimeout: delivery.DefaultTimeout.String(),
		signingForm: signingFormOf(p.api.DefaultSigning())}
	p.fillCatalog(r.Context(), &f)
	p.renderView(w, r, http.StatusOK, "endpointform", view{Section: "endpoints", Data: f})
}

func (p *Portal) createEndpoint(w http.ResponseWriter, r *http.Request) {
	f := readForm(r)
	if r.PostFormValue("action") == "test-filter" {
		p.testFilter(w, r, f)
		return
	}
	patch := f.patch()
	var in api.EndpointCreate
	in.URL, in.Description, in.EventTypes = *patch.URL, patch.Description, patch.EventTypes
	if strings.TrimSpace(f.RetrySchedule) != "" {
		in.RetrySchedule = patch.RetrySchedule
	}
	if f.Timeout != "" {
		in.Timeout = patch.Timeout
	}
	in.Headers, in.Auth, in.TLS = patch.Headers, patch.Auth, patch.TLS
	in.Filter = patch.Filter
	in.Signing = patch.Signing
	in.PropagateTrace = patch.PropagateTrace
	in.RateLimit = patch.RateLimit
	ep, err := p.api.CreateEndpoint(r.Context(), in)
	if err != nil {
		p.showForm(w, r, f, err)
		return
	}
	seeOther(w, r, Prefix+"/endpoints/"+ep.ID+"?done=created")
}

func (p *Portal) editEndpoint(w http.ResponseWriter, r *http.Request) {
	ep, err := p.api.Endpoint(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	f := formOf(ep)
	f.DefaultSchedule, f.DefaultTimeout = defaultSchedule(), delivery.DefaultTimeout.String()
	p.fillCatalog(r.Context(), &f)
	p.renderView(w, r, http.StatusOK, "endpointform", view{Section: "endpoints", Data: f})
}

func (p *Portal) updateEndpoint(w http.ResponseWriter, r *http.Request) {
	f := readForm(r)
	f.ID = chi.URLParam(r, "id")
	if r.PostFormValue("action") == "test-filter" {
		p.testFilter(w, r, f)
		return
	}
	if _, err := p.api.UpdateEndpoint(r.Context(), f.ID, f.patch()); err != nil {
		p.showForm(w, r, f, err)
		return
	}
	seeOther(w, r, Prefix+"/endpoints/"+f.ID+"?done=updated")
}

func (p *Portal) setEnabled(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	enabled := r.PostFormValue("enabled") == "true"
	if _, err := p.api.UpdateEndpoint(r.Context(), id, api.EndpointPatch{Enabled: &enabled}); err != nil {
		p.fail(w, r, err)
		return
	}
	done := map[bool]string{true: "enabled", false: "disabled"}[enabled]
	seeOther(w, r, Prefix+"/endpoints/"+id+"?done="+done)
}

func (p *Portal) confirmDelete(w http.ResponseWriter, r *http.Request) {
	ep, err := p.api.Endpoint(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.renderView(w, r, http.StatusOK, "delete", view{Section: "endpoints", Data: ep})
}

func (p *Portal) deleteEndpoint(w http.ResponseWriter, r *http.Request) {
	if err := p.api.DeleteEndpoint(r.Context(), chi.URLParam(r, "id")); err != nil {
		p.fail(w, r, err)
		return
	}
	seeOther(w, r, Prefix+"/?done=deleted")
}

// testFilter is the form's "test this filter": the filter as typed, tried
// on the example event, its outcome shown next to it; nothing is saved.
func (p *Portal) testFilter(w http.ResponseWriter, r *http.Request, f endpointForm) {
	typ := f.ExampleType
	if typ == "" {
		if types := fieldsOf(f.EventTypes); len(types) > 0 {
			typ = strings.TrimSuffix(types[0], ".*")
		}
	}
	res, err := p.api.TestFilter(r.Context(), f.Filter, typ, cmp.Or(strings.TrimSpace(f.ExamplePayload), "{}"))
	var e *api.Error
	if errors.As(err, &e) && e.Code == api.CodeInvalid {
		f.Errors = map[string]string{e.Field: e.Message}
		err = nil
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	switch {
	case f.Errors != nil:
	case res.Matched:
		f.FilterResult = "Matches: this event would be delivered."
	case res.Reason != "":
		f.FilterResult = "Fails (" + res.Reason + "): this event would not be delivered."
	default:
		f.FilterResult = "Does not match: this event would not be delivered."
	}
	f.DefaultSchedule, f.DefaultTimeout = defaultSchedule(), delivery.DefaultTimeout.String()
	p.renderView(w, r, http.StatusOK, "endpointform", view{Section: "endpoints", Data: f})
}
