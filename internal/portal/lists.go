package portal

import (
	"context"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/store"
)

// pageSize is how many rows a list of deliveries or dead letters shows.
const pageSize = 25

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

// pageOf is the page of a list the request asks for.
func pageOf(r *http.Request) store.Page {
	return store.Page{Cursor: r.URL.Query().Get("cursor"), Limit: pageSize}
}

// filterEndpoints are the tenant's endpoints, for a filter's choices.
func (p *Portal) filterEndpoints(ctx context.Context) ([]api.EndpointView, error) {
	eps, _, err := p.api.ListEndpoints(ctx, "", store.Page{Limit: 500})
	return eps, err
}

// historyPage reads one page of a list Temporal keeps (list), sorts it
// newest first (Temporal lists open runs first, then by close time) and
// reads each entry's details into its row, a few at a time. A Temporal
// outage is reported in down, with what could be read; any other error
// fails.
func historyPage[Ref, Row any](list func() ([]Ref, string, error), newer func(a, b Ref) int, row func(Ref) (Row, error)) (rows []Row, next string, down bool, err error) {
	refs, next, err := list()
	if api.IsUnavailable(err) {
		return nil, "", true, nil
	}
	if err != nil {
		return nil, "", false, err
	}
	slices.SortStableFunc(refs, newer)
	rows = make([]Row, len(refs))
	down, err = unavailable(each(len(refs), func(i int) error {
		var err error
		rows[i], err = row(refs[i])
		return err
	}))
	return rows, next, down, err
}

// each runs fn for 0..n-1, a few at a time, and returns their errors.
func each(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var g errgroup.Group
	g.SetLimit(4)
	for i := range n {
		g.Go(func() error {
			errs[i] = fn(i)
			return nil
		})
	}
	_ = g.Wait() // every fn's error is in errs
	return errs
}

// unavailable reports whether any of errs is a Temporal outage, and
// returns the first other error, if any.
func unavailable(errs []error) (bool, error) {
	down := false
	for _, err := range errs {
		switch {
		case err == nil:
		case api.IsUnavailable(err):
			down = true
		default:
			return down, err
		}
	}
	return down, nil
}
