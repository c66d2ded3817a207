package portal

import (
	"context"
	"net/http"
	"time"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/store"
)

// overviewLimit bounds the endpoints the overview reads.
const overviewLimit = 500

// overview is the data of the Overview page.
type overview struct {
	Charts []series
	// Attention are the endpoints needing it: circuit open, disabled or
	// failing in the last 24 hours.
	Attention []attention
	Endpoints int
	// DeadLetters waiting; -1 when Temporal could not be asked.
	DeadLetters int64
}

// attention is an endpoint needing attention and why.
type attention struct {
	api.EndpointView
	Circuit string
	Reason  string
	Day     series
}

// failingBelow is the 24-hour success rate under which an endpoint with
// attempts is failing.
const failingBelow = 0.9

// charts reads the hourly stats of the endpoint (all of the tenant's for
// "") once and returns its last 24 hours and 7 days.
func (p *Portal) charts(ctx context.Context, endpointID string) ([]series, error) {
	now := p.now()
	hours, err := p.api.HourlyStats(ctx, endpointID, now.Add(-7*24*time.Hour))
	if err != nil {
		return nil, err
	}
	return []series{seriesOf("24 hours", hours, now, 24), seriesOf("7 days", hours, now, 7*24)}, nil
}

// hoursByEndpoint groups hourly totals by endpoint.
func hoursByEndpoint(hours []store.StatsHour) map[string][]store.StatsHour {
	out := map[string][]store.StatsHour{}
	for _, h := range hours {
		out[h.EndpointID] = append(out[h.EndpointID], h)
	}
	return out
}

// showOverview renders the page the portal opens on: the tenant's
// deliveries and success rate over 24 hours and 7 days, the endpoints
// needing attention and the dead letters waiting. Its figures are the
// stats (the tenant's hours summed by the store, and each endpoint's last
// 24 hours, two queries) and the circuits (one store read each); only the dead-letter count asks Temporal, and an outage shows
// the banner instead of it.
func (p *Portal) showOverview(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	eps, _, err := p.api.ListEndpoints(ctx, "", store.Page{Limit: overviewLimit})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	data := overview{Endpoints: len(eps)}
	now := p.now()
	totals, err := p.api.HourlyTotals(ctx, now.Add(-7*24*time.Hour))
	var hours []store.StatsHour
	if err == nil {
		hours, err = p.api.HourlyStats(ctx, "", now.Add(-24*time.Hour))
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	data.Charts = []series{seriesOf("24 hours", totals, now, 24), seriesOf("7 days", totals, now, 7*24)}
	byEndpoint := hoursByEndpoint(hours)
	for _, ep := range eps {
		circuit, err := p.api.EndpointCircuit(ctx, ep.ID)
		if err != nil {
			p.fail(w, r, err)
			return
		}
		a := attention{EndpointView: ep, Circuit: circuit, Day: seriesOf("24 hours", byEndpoint[ep.ID], now, 24)}
		switch {
		case !ep.Enabled:
			a.Reason = "Disabled: deliveries wait until it is enabled."
		case circuit == "open" || circuit == "half_open":
			a.Reason = "Paused after repeated failures: deliveries wait."
		case a.Day.Total.attempts() > 0 && a.Day.Rate() < failingBelow:
			a.Reason = "Failing: " + pctOf(a.Day.Rate(), a.Day.Total.attempts()) + " of attempts succeeded in 24 hours."
		default:
			continue
		}
		data.Attention = append(data.Attention, a)
	}
	v := view{Section: "overview", Data: &data}
	if data.DeadLetters, err = p.api.DeadLettersWaiting(ctx); err != nil {
		if !api.IsUnavailable(err) {
			p.fail(w, r, err)
			return
		}
		v.Unavailable, data.DeadLetters = true, -1
	}
	p.renderView(w, r, http.StatusOK, "overview", v)
}
