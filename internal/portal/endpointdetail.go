package portal

import (
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/internal/api"
)

// endpointPage is the data of an endpoint's page. Secret, Rotated and
// Test are set by the action that showed the page.
type endpointPage struct {
	endpointHealth
	Secret   string
	Rotated  *api.RotatedSecret
	Test     *api.TestResult
	Overlaps []overlap
	// Charts are its last 24 hours and 7 days, hour by hour.
	Charts []series
	// Warnings name its event types that match no catalog type;
	// TestTypes are the catalog types a test event can carry an example
	// of.
	Warnings  []api.Warning
	TestTypes []string
	// TestType is the type the test just sent, "" for hookd.test.
	TestType string
}

// overlap is a choice of how long a rotated-out secret stays valid.
type overlap struct{ Value, Label string }

var overlaps = []overlap{
	{"0s", "none: the old secret stops at once"},
	{"1h", "1 hour"},
	{"24h", "24 hours"},
	{"168h", "7 days"},
}

// showEndpointPage renders an endpoint's page with what an action set in
// page. A Temporal outage only hides the figures that need it.
func (p *Portal) showEndpointPage(w http.ResponseWriter, r *http.Request, page endpointPage, v view) {
	ctx := r.Context()
	ep, err := p.api.Endpoint(ctx, chi.URLParam(r, "id"))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	page.endpointHealth, err = p.withHealth(ctx, ep)
	if api.IsUnavailable(err) {
		v.Unavailable, err = true, nil
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	if page.Charts, err = p.charts(ctx, ep.ID); err != nil {
		p.fail(w, r, err)
		return
	}
	page.Overlaps = overlaps
	page.Warnings = p.api.EventTypeWarnings(ctx, ep.EventTypes)
	page.TestTypes = p.withExamples(ctx)
	v.Section, v.Data = "endpoints", page
	p.renderView(w, r, http.StatusOK, "endpoint", v)
}

func (p *Portal) showEndpoint(w http.ResponseWriter, r *http.Request) {
	p.showEndpointPage(w, r, endpointPage{}, view{})
}

func (p *Portal) revealSecret(w http.ResponseWriter, r *http.Request) {
	secret, err := p.api.EndpointSecret(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.showEndpointPage(w, r, endpointPage{Secret: secret}, view{})
}

func (p *Portal) rotateSecret(w http.ResponseWriter, r *http.Request) {
	overlap := r.PostFormValue("overlap")
	rotated, err := p.api.RotateSecret(r.Context(), chi.URLParam(r, "id"), &overlap)
	if err != nil {
		p.actionFailed(w, r, err)
		return
	}
	p.showEndpointPage(w, r, endpointPage{Rotated: &rotated}, view{Notice: "Secret rotated."})
}

func (p *Portal) testEndpoint(w http.ResponseWriter, r *http.Request) {
	eventType := r.PostFormValue("event_type")
	res, err := p.api.TestEndpoint(r.Context(), chi.URLParam(r, "id"), eventType)
	if err != nil {
		p.actionFailed(w, r, err)
		return
	}
	p.showEndpointPage(w, r, endpointPage{Test: &res, TestType: eventType}, view{})
}

// recoverEndpoint is the customer's "my endpoint is fixed": the API's
// recover, in the session's tenant. It closes the endpoint's circuit
// (enabling it if it was disabled) and sends its waiting deliveries
// again now.
func (p *Portal) recoverEndpoint(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	if _, err := p.api.RecoverEndpoint(r.Context(), id, Reason); err != nil {
		p.actionFailed(w, r, err)
		return
	}
	seeOther(w, r, Prefix+"/endpoints/"+id+"?done=recovered")
}

// heldBack is what a customer reads when a test is refused because the
// endpoint's circuit holds deliveries back (the page's banner offers to
// resume them); the API's message names its own routes.
const heldBack = "A test event cannot be sent while deliveries to this endpoint are paused. Resume deliveries first."

// actionFailed shows the endpoint's page with why an action on it failed:
// the API's message, or the outage banner.
func (p *Portal) actionFailed(w http.ResponseWriter, r *http.Request, err error) {
	var e *api.Error
	switch {
	case errors.As(err, &e) && e.Code == api.CodeConflict && e.Field == "circuit":
		p.showEndpointPage(w, r, endpointPage{}, view{Alert: heldBack})
	case errors.As(err, &e) && e.Code != api.CodeNotFound && e.Code != api.CodeInternal:
		p.showEndpointPage(w, r, endpointPage{}, view{Alert: e.Error()})
	case api.IsUnavailable(err):
		p.showEndpointPage(w, r, endpointPage{}, view{Unavailable: true})
	default:
		p.fail(w, r, err)
	}
}
