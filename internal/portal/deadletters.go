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
		seeOther(w, r, Prefix+"/dead-letters/redrive/"+url.PathEscape(started.JobID))
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
	p.renderView(w, r, http.StatusOK, "redriven", view{Section: "dead-letters", Unavailable: down, Data: results})
}

// redriveJob shows a bulk redrive's progress, refreshing while it runs.
func (p *Portal) redriveJob(w http.ResponseWriter, r *http.Request) {
	job, err := p.api.RedriveJob(r.Context(), chi.URLParam(r, "job"))
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.renderView(w, r, http.StatusOK, "redrivejob", view{Section: "dead-letters", Data: job})
}
