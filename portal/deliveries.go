package portal

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/api"
	"github.com/hookd/hookd/delivery"
	"github.com/hookd/hookd/signing"
	"github.com/hookd/hookd/store"
)

// deliveryRow is a delivery in the list, with its attempts when they
// could be read.
type deliveryRow struct {
	api.DeliveryRef
	Attempts   int
	LastStatus int
	Known      bool
}

// listFilter is the filter form of the deliveries and dead-letters pages,
// as typed.
type listFilter struct {
	EndpointID, Status, EventType, Period string
}

func filterOf(r *http.Request) listFilter {
	q := r.URL.Query()
	return listFilter{EndpointID: q.Get("endpoint_id"), Status: q.Get("status"), EventType: q.Get("event_type"), Period: q.Get("period")}
}

// since is the RFC 3339 start of the filter's period, "" for any time.
func (f listFilter) since(now time.Time) string {
	d, err := time.ParseDuration(f.Period)
	if err != nil || d <= 0 {
		return ""
	}
	return now.Add(-d).UTC().Format(time.RFC3339)
}

// next is the link to the page after cursor with the same filter, ""
// when there is none.
func (f listFilter) next(cursor string) template.URL {
	if cursor == "" {
		return ""
	}
	v := url.Values{"cursor": {cursor}}
	for k, s := range map[string]string{"endpoint_id": f.EndpointID, "status": f.Status, "event_type": f.EventType, "period": f.Period} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return template.URL("?" + v.Encode())
}

// period is a choice of the filters' time range.
type period struct{ Value, Label string }

var periods = []period{{"", "any time"}, {"1h", "last hour"}, {"24h", "last 24 hours"}, {"168h", "last 7 days"}}

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
	data := deliveryList{Filter: f, Periods: periods,
		Statuses: []delivery.Status{delivery.StatusPending, delivery.StatusDelivered, delivery.StatusFailed, delivery.StatusExhausted}}
	var err error
	if data.Endpoints, _, err = p.api.ListEndpoints(ctx, "", store.Page{Limit: 500}); err != nil {
		p.fail(w, r, err)
		return
	}
	data.URLs = map[string]string{}
	for _, ep := range data.Endpoints {
		data.URLs[ep.ID] = ep.URL
	}
	filter := api.DeliveryFilter{EndpointID: f.EndpointID, Status: f.Status, EventType: f.EventType, Since: f.since(p.now())}
	refs, next, err := p.api.ListDeliveries(ctx, filter, store.Page{Cursor: r.URL.Query().Get("cursor"), Limit: 25})
	v := view{Section: "deliveries"}
	switch {
	case api.IsUnavailable(err):
		v.Unavailable = true
	case err != nil:
		p.fail(w, r, err)
		return
	}
	// Temporal lists open runs first, then by close time: newest first
	// within the page.
	slices.SortStableFunc(refs, func(a, b api.DeliveryRef) int { return b.CreatedAt.Compare(a.CreatedAt) })
	data.Rows, data.Next = make([]deliveryRow, len(refs)), f.next(next)
	errs := each(len(refs), func(i int) error {
		data.Rows[i].DeliveryRef = refs[i]
		d, err := p.api.Delivery(ctx, refs[i].ID)
		if err == nil {
			data.Rows[i].Attempts, data.Rows[i].LastStatus, data.Rows[i].Known = d.Attempts, d.LastStatus, true
		}
		return err
	})
	down, err := unavailable(errs)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	v.Unavailable = v.Unavailable || down
	v.Data = data
	p.renderView(w, r, http.StatusOK, "deliveries", v)
}

// header is one header a delivery sent.
type header struct{ Name, Value string }

// deliveryPage is the data of a delivery's page.
type deliveryPage struct {
	api.DeliveryView
	Request    delivery.Request
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
	var req delivery.Request
	if err == nil {
		req, err = p.api.DeliveryRequest(ctx, id)
	}
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
	page := deliveryPage{DeliveryView: d, Request: req,
		Resendable: d.Status == delivery.StatusFailed || d.Status == delivery.StatusExhausted}
	page.Headers, page.HeadersOf = p.headersSent(d, req)
	v.Section, v.Data = "deliveries", page
	p.renderView(w, r, http.StatusOK, "delivery", v)
}

// headersSent are the headers of the delivery's latest attempt, as the
// delivery activity sets them (activities/attempt.go); the signature
// itself is not stored.
func (p *Portal) headersSent(d api.DeliveryView, req delivery.Request) ([]header, int) {
	if len(d.Timeline) == 0 {
		return nil, 0
	}
	last := d.Timeline[len(d.Timeline)-1]
	return []header{
		{"Content-Type", "application/json"},
		{"User-Agent", "hookd/" + p.version},
		{signing.HeaderID, d.ID},
		{signing.HeaderTimestamp, strconv.FormatInt(last.Start.Unix(), 10)},
		{signing.HeaderSignature, "v1,… (HMAC-SHA256 with each valid secret; not stored)"},
		{"hookd-event-type", req.EventType},
		{"hookd-event-id", req.EventID},
		{"hookd-attempt", strconv.Itoa(last.Number)},
	}, last.Number
}

// resend redrives a failed or exhausted delivery from its dead letter.
func (p *Portal) resend(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := chi.URLParam(r, "id")
	if _, err := p.api.Delivery(ctx, id); err != nil {
		p.fail(w, r, err)
		return
	}
	err := p.api.RedriveDeadLetter(ctx, id, Actor)
	var e *api.Error
	switch {
	case err == nil:
		seeOther(w, r, Prefix+"/deliveries/"+id+"?done=resent")
	case errors.As(err, &e) && e.Code == api.CodeNotFound:
		p.showDeliveryPage(w, r, view{Alert: "This delivery has no dead letter waiting to be resent: it was resent already, or its dead letter expired."})
	case api.IsUnavailable(err):
		p.showDeliveryPage(w, r, view{Unavailable: true})
	default:
		p.fail(w, r, err)
	}
}
