package portal

import (
	"errors"
	"html/template"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/delivery"
	"github.com/hookd/hookd/signing"
)

// deliveryRow is a delivery in the list, with its attempts when they
// could be read (a list reads them with each delivery).
type deliveryRow struct {
	api.DeliveryRef
	Known bool
}

// deliveryList is the data of the deliveries page.
type deliveryList struct {
	Rows      []deliveryRow
	Filter    listFilter
	Endpoints []api.EndpointView
	// URLs are the endpoints' URLs by ID.
	URLs     map[string]string
	Statuses []delivery.Status
	Periods  []period
	Next     template.URL
}

func (p *Portal) listDeliveries(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f := filterOf(r)
	data := deliveryList{Filter: f, Periods: periods, URLs: map[string]string{},
		Statuses: []delivery.Status{delivery.StatusPending, delivery.StatusDelivered, delivery.StatusFailed, delivery.StatusExhausted, delivery.StatusExpunged}}
	var err error
	if data.Endpoints, err = p.filterEndpoints(ctx); err != nil {
		p.fail(w, r, err)
		return
	}
	for _, ep := range data.Endpoints {
		data.URLs[ep.ID] = ep.URL
	}
	filter := api.DeliveryFilter{EndpointID: f.EndpointID, Status: f.Status, EventType: f.EventType, Since: f.since(p.now())}
	rows, next, down, err := historyPage(
		func() ([]api.DeliveryRef, string, error) { return p.api.ListDeliveries(ctx, filter, pageOf(r)) },
		func(a, b api.DeliveryRef) int { return b.CreatedAt.Compare(a.CreatedAt) },
		func(ref api.DeliveryRef) (deliveryRow, error) { return deliveryRow{DeliveryRef: ref, Known: true}, nil })
	if err != nil {
		p.fail(w, r, err)
		return
	}
	data.Rows, data.Next = rows, f.next(next)
	p.renderView(w, r, http.StatusOK, "deliveries", view{Section: "deliveries", Unavailable: down, Data: data})
}

// header is one header a delivery sent.
type header struct{ Name, Value string }

// deliveryPage is the data of a delivery's page.
type deliveryPage struct {
	api.DeliveryView
	Headers    []header
	HeadersOf  int // the attempt the headers are of
	Resendable bool
}

func (p *Portal) showDelivery(w http.ResponseWriter, r *http.Request) {
	p.showDeliveryPage(w, r, view{})
}

func (p *Portal) showDeliveryPage(w http.ResponseWriter, r *http.Request, v view) {
	ctx := r.Context()
	id := chi.URLParam(r, "id")
	d, err := p.api.Delivery(ctx, id)
	if api.IsUnavailable(err) {
		v.Section, v.Unavailable = "deliveries", true
		v.Data = message{Title: "Delivery " + id, Text: "Its history cannot be read right now. Try again in a minute."}
		p.renderView(w, r, http.StatusServiceUnavailable, "message", v)
		return
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	page := deliveryPage{DeliveryView: d,
		Resendable: d.Status == wire.DeliveryStatusFailed || d.Status == wire.DeliveryStatusExhausted}
	var profile signing.Profile // a deleted endpoint's: Standard Webhooks
	if ep, err := p.api.Endpoint(ctx, d.EndpointID); err == nil {
		profile = api.SigningOf(ep.Signing)
	}
	page.Headers, page.HeadersOf = p.headersSent(d, profile)
	v.Section, v.Data = "deliveries", page
	p.renderView(w, r, http.StatusOK, "delivery", v)
}

// headersSent are the headers of the delivery's latest attempt, as the
// delivery activity sets them (activities/attempt.go) under the
// endpoint's current signing profile; the signature itself is not
// stored.
func (p *Portal) headersSent(d api.DeliveryView, profile signing.Profile) ([]header, int) {
	i := len(d.Timeline) - 1
	for i >= 0 && d.Timeline[i].Kind != api.TimelineAttempt {
		i--
	}
	if i < 0 {
		return nil, 0
	}
	last := d.Timeline[i]
	sig := "v1,… (HMAC-SHA256 with each valid secret; not stored)"
	if profile.Scheme == signing.SchemeHMACSHA256 {
		sig = profile.Prefix + "… (HMAC-SHA256 with each valid secret, comma-separated; not stored)"
	}
	values := map[string]string{"header": sig, "timestamp_header": strconv.FormatInt(last.Start.Unix(), 10), "delivery_id_header": d.ID,
		"event_id_header": d.EventID, "event_type_header": d.EventType, "attempt_header": strconv.Itoa(last.Number)}
	out := []header{{"Content-Type", "application/json"}, {"User-Agent", "hookd/" + p.version}}
	for _, f := range profile.HeaderFields() {
		out = append(out, header{f.Name, values[f.Field]})
	}
	return out, last.Number
}

// resend redrives a failed or exhausted delivery from its dead letter.
func (p *Portal) resend(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := chi.URLParam(r, "id")
	if _, err := p.api.Delivery(ctx, id); err != nil {
		p.fail(w, r, err)
		return
	}
	err := p.api.RedriveDeadLetter(ctx, id, Reason)
	var e *api.Error
	switch {
	case err == nil:
		seeOther(w, r, Prefix+"/deliveries/"+id+"?done=resent")
	case errors.As(err, &e) && e.Code == api.CodeConflict: // its event was expunged
		p.showDeliveryPage(w, r, view{Alert: e.Message})
	case errors.As(err, &e) && e.Code == api.CodeNotFound:
		p.showDeliveryPage(w, r, view{Alert: "This delivery has no dead letter waiting to be resent: it was resent already, or its dead letter expired."})
	case api.IsUnavailable(err):
		p.showDeliveryPage(w, r, view{Unavailable: true})
	default:
		p.fail(w, r, err)
	}
}
