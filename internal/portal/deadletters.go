package portal

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/delivery"
)

// maxSelected bounds the dead letters one form redrives one by one.
const maxSelected = 100

// deadLetterRow is a dead letter in the list, with its last error when it
// could be read.
type deadLetterRow struct {
	api.DeadLetterRef
	Attempts  int
	LastError string
}

// deadLetterList is the data of the dead-letters page.
type deadLetterList struct {
	Rows      []deadLetterRow
	Filter    listFilter
	Endpoints []api.EndpointView
	// URLs are the endpoints' URLs by ID.
	URLs    map[string]string
	Reasons []delivery.Status
	Periods []period
	Next    template.URL
}

// deadLetterFilter is the page's filter as the API's, in the session's
// tenant (a bulk redrive in a tenant scope must name it).
func (p *Portal) deadLetterFilter(r *http.Request, f listFilter) api.DeadLetterFilter {
	out := api.DeadLetterFilter{TenantID: sessionOf(r.Context()).tenant, EndpointID: f.EndpointID, EventType: f.EventType, Since: f.since(p.now())}
	if f.Status != "" {
		out.Reasons = []string{f.Status}
	}
	return out
}

func (p *Portal) listDeadLetters(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f := filterOf(r)
	data := deadLetterList{Filter: f, Periods: periods, URLs: map[string]string{}, Reasons: []delivery.Status{delivery.StatusFailed, delivery.StatusExhausted}}
	var err error
	if data.Endpoints, err = p.filterEndpoints(ctx); err != nil {
		p.fail(w, r, err)
		return
	}
	for _, ep := range data.Endpoints {
		data.URLs[ep.ID] = ep.URL
	}
	rows, next, down, err := historyPage(
		func() ([]api.DeadLetterRef, string, error) {
			return p.api.ListDeadLetters(ctx, p.deadLetterFilter(r, f), pageOf(r))
		},
		func(a, b api.DeadLetterRef) int { return b.DeadAt.Compare(a.DeadAt) },
		func(ref api.DeadLetterRef) (deadLetterRow, error) {
			d, err := p.api.DeadLetter(ctx, ref.ID)
			return deadLetterRow{DeadLetterRef: ref, Attempts: d.Attempts, LastError: d.LastError}, err
		})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	data.Rows, data.Next = rows, f.next(next)
	p.renderView(w, r, http.StatusOK, "deadletters", view{Section: "dead-letters", Unavailable: down, Data: data})
}

// redriveResult is what became of one selected dead letter's redrive.
type redriveResult struct {
	ID    string
	Error string
	// EndpointID and Hold say, for a redrive that went through, whether
	// its endpoint's open circuit holds it, and until when.
	EndpointID string
	Hold       api.Hold
}

// redriven is the data of the page after a redrive of selected dead
// letters: what became of each, and the paused endpoints holding some.
type redriven struct {
	Results []redriveResult
	Held    []heldEndpoint
}

// heldEndpoint is an endpoint whose open circuit holds redriven
// deliveries.
type heldEndpoint struct {
	ID, URL string
	Hold    api.Hold
}

// heldEndpoints lists, once each, the endpoints holding some of the
// results, with their URLs when the tenant's endpoints can be read.
func (p *Portal) heldEndpoints(r *http.Request, results []redriveResult) []heldEndpoint {
	var out []heldEndpoint
	for _, res := range results {
		if res.Hold.By == "" || slices.ContainsFunc(out, func(h heldEndpoint) bool { return h.ID == res.EndpointID }) {
			continue
		}
		h := heldEndpoint{ID: res.EndpointID, Hold: res.Hold}
		if ep, err := p.api.Endpoint(r.Context(), res.EndpointID); err == nil {
			h.URL = ep.URL
		}
		out = append(out, h)
	}
	return out
}

// redrive redrives the selected dead letters one by one, or every one the
// filter selects as a bulk job whose progress its own page shows.
func (p *Portal) redrive(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.PostFormValue("all") != "" {
		f := listFilter{EndpointID: r.PostFormValue("endpoint_id"), Status: r.PostFormValue("status"),
			EventType: r.PostFormValue("event_type"), Period: r.PostFormValue("period")}
		started, err := p.api.RedriveDeadLetters(ctx, p.deadLetterFilter(r, f), nil, Reason)
		if err != nil {
			p.fail(w, r, err)
			return
		}
		if started.Matched == 0 {
			p.renderView(w, r, http.StatusOK, "message", view{Section: "dead-letters",
				Data: message{Title: "Nothing to redrive", Text: "No dead letter matches this filter any more."}})
			return
		}
		to := Prefix + "/dead-letters/redrive/" + url.PathEscape(started.JobID)
		if started.HeldBy != "" {
			to += "?held=" + url.QueryEscape(f.EndpointID)
		}
		seeOther(w, r, to)
		return
	}
	ids := slices.Compact(slices.Sorted(slices.Values(r.PostForm["id"])))
	if len(ids) == 0 || len(ids) > maxSelected {
		p.renderView(w, r, http.StatusBadRequest, "message", view{Section: "dead-letters",
			Data: message{Title: "Nothing selected", Text: "Select up to 100 dead letters, or redrive all in the filter."}})
		return
	}
	results := make([]redriveResult, len(ids))
	errs := each(len(ids), func(i int) error {
		results[i].ID = ids[i]
		err := p.api.RedriveDeadLetter(ctx, ids[i], Reason)
		var e *api.Error
		switch {
		case err == nil:
			results[i].EndpointID, results[i].Hold = p.api.RedriveHold(ctx, ids[i])
		case errors.As(err, &e):
			results[i].Error, err = e.Message, nil
		case api.IsUnavailable(err):
			results[i].Error = "temporarily unavailable; try again"
		}
		return err
	})
	down, err := unavailable(errs)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.renderView(w, r, http.StatusOK, "redriven", view{Section: "dead-letters", Unavailable: down,
		Data: redriven{Results: results, Held: p.heldEndpoints(r, results)}})
}

// redriveJobPage is the data of a bulk redrive's page: the job, and the
// paused endpoint holding its deliveries when the redrive named one.
type redriveJobPage struct {
	api.RedriveProgress
	Held []heldEndpoint
}

// redriveJob shows a bulk redrive's progress, refreshing while it runs.
func (p *Portal) redriveJob(w http.ResponseWriter, r *http.Request) {
	job, err := p.api.RedriveJob(r.Context(), chi.URLParam(r, "job"))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	data := redriveJobPage{RedriveProgress: job}
	if ep := r.URL.Query().Get("held"); ep != "" {
		data.Held = p.heldEndpoints(r, []redriveResult{{EndpointID: ep, Hold: p.api.EndpointHold(r.Context(), ep)}})
	}
	p.renderView(w, r, http.StatusOK, "redrivejob", view{Section: "dead-letters", Data: data})
}
