package e2e

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// endpointIDs are the endpoints an accepted event fanned out to.
func endpointIDs(a accepted) []string {
	var out []string
	for _, d := range a.Deliveries {
		out = append(out, d.EndpointID)
	}
	return out
}

// A filtered endpoint receives only the events its filter accepts, beside
// an unfiltered one of the same types. The event record keeps the fan-out:
// re-posts after the filter changed are duplicates of the original, and
// only a new event sees the new filter.
func TestContentFilterRoutesOnPayload(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rcEUR, rcAll := newReceiver(t, nil), newReceiver(t, nil)
	eur := api.createEndpoint(map[string]any{"url": rcEUR.URL, "event_types": []string{"cfroute.*"},
		"filter": `payload.amount > 1000 && payload.currency == "EUR" && type.startsWith("cfroute.")`})
	all := api.createEndpoint(map[string]any{"url": rcAll.URL, "event_types": []string{"cfroute.*"}})

	big := `{"event_id":"evt_cf_big","type":"cfroute.paid","payload":{"amount":1500,"currency":"EUR"}}`
	small := `{"event_id":"evt_cf_small","type":"cfroute.paid","payload":{"amount":10,"currency":"EUR"}}`
	first := api.send(big)
	require.Equal(t, []string{eur.ID, all.ID}, endpointIDs(first))
	smallFirst := api.send(small)
	require.Equal(t, []string{all.ID}, endpointIDs(smallFirst))
	api.requireNoDelivery("evt_cf_small", eur.ID)

	// The filter now takes the small amounts and refuses the big ones.
	var ep endpoint
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+eur.ID, map[string]any{"filter": `payload.amount < 100`}, &ep))
	require.Equal(t, `payload.amount < 100`, ep.Filter)
	again := api.send(small)
	require.True(t, again.Duplicate)
	require.Equal(t, smallFirst.Deliveries, again.Deliveries, "the recorded fan-out, not the new filter's")
	api.requireNoDelivery("evt_cf_small", eur.ID)
	bigAgain := api.send(big)
	require.True(t, bigAgain.Duplicate)
	require.Equal(t, first.Deliveries, bigAgain.Deliveries)

	fresh := api.send(`{"event_id":"evt_cf_fresh","type":"cfroute.paid","payload":{"amount":10,"currency":"EUR"}}`)
	require.Equal(t, []string{eur.ID, all.ID}, endpointIDs(fresh), "a new event sees the new filter")

	for _, a := range []accepted{first, smallFirst, fresh} {
		for _, d := range a.Deliveries {
			require.EqualValues(t, "delivered", api.waitDelivery(d.ID, 10*time.Second).Status)
		}
	}
	require.Len(t, rcEUR.Hits(), 2, "the big event and the fresh one")
	require.Len(t, rcAll.Hits(), 3)
}

// A filter that fails at run time (a missing key) does not match; the
// event is accepted and the other endpoints' deliveries happen. The
// failure is counted by reason.
func TestContentFilterFailureKeepsTheOthers(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rcBroken, rcOK, rcPlain := newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil)
	broken := api.createEndpoint(map[string]any{"url": rcBroken.URL, "event_types": []string{"cferr.x"}, "filter": `payload.missing > 1000`})
	ok := api.createEndpoint(map[string]any{"url": rcOK.URL, "event_types": []string{"cferr.x"}, "filter": `"vip" in payload.tags`})
	plain := api.createEndpoint(map[string]any{"url": rcPlain.URL, "event_types": []string{"cferr.x"}})

	before := filterErrorCount(t, "no_such_key")
	a := api.send(`{"event_id":"evt_cf_err","type":"cferr.x","payload":{"tags":["vip"],"amount":5}}`)
	require.Equal(t, []string{ok.ID, plain.ID}, endpointIDs(a))
	api.requireNoDelivery("evt_cf_err", broken.ID)
	for _, d := range a.Deliveries {
		require.EqualValues(t, "delivered", api.waitDelivery(d.ID, 10*time.Second).Status)
	}
	require.Empty(t, rcBroken.Hits())
	require.Len(t, rcOK.Hits(), 1)
	require.Len(t, rcPlain.Hits(), 1)
	require.Greater(t, filterErrorCount(t, "no_such_key"), before)
}

// filterErrorCount reads hookd_filter_errors_total{reason} from /metrics.
func filterErrorCount(t *testing.T, reason string) float64 {
	t.Helper()
	code, body := scrapeMetrics(t, shared.APIKey)
	require.Equal(t, http.StatusOK, code)
	m := regexp.MustCompile(`(?m)^hookd_filter_errors_total\{reason="` + reason + `"\} (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	n, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	return n
}

// Bad filters are refused with 400 naming "filter" and CEL's message; null
// and "" remove a filter.
func TestContentFilterValidation(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	rc := newReceiver(t, nil)
	for filter, want := range map[string]string{
		`payload.amount >`:                   "1:17: Syntax error",
		`payload.amount > 1 && unknown == 2`: "undeclared reference to 'unknown'",
		`type + "x"`:                         "must yield a bool, not string",
		`type == 1`:                          "no matching overload",
		`type == "` + strings.Repeat("x", 2100) + `"`: "at most 2048 bytes",
	} {
		var e apiError
		require.Equal(t, http.StatusBadRequest, api.do("POST", "/v1/endpoints",
			map[string]any{"url": rc.URL, "event_types": []string{"cfval.x"}, "filter": filter}, &e), filter)
		require.Equal(t, "filter", e.Error.Field, filter)
		require.Contains(t, e.Error.Message, want, filter)
	}
	ep := api.createEndpoint(map[string]any{"url": rc.URL, "event_types": []string{"cfval.x"}, "filter": `payload.ok == true`})
	var e apiError
	require.Equal(t, http.StatusBadRequest, api.do("PATCH", "/v1/endpoints/"+ep.ID, `{"filter":5}`, &e))
	require.Equal(t, "filter", e.Error.Field)
	require.Equal(t, http.StatusBadRequest, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"filter": `payload.ok ==`}, &e))
	require.Equal(t, "filter", e.Error.Field)
	// A map, not wire.Endpoint: the checks below tell a filter left out
	// of the answer from an empty one.
	var got map[string]any
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+ep.ID, nil, &got))
	require.Equal(t, `payload.ok == true`, got["filter"], "a refused patch changes nothing")

	got = nil // a map decoded into keeps the keys the answer lacks
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, `{"filter":null}`, &got))
	require.NotContains(t, got, "filter", "null removes it")
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"filter": `payload.ok`}, &got))
	require.Equal(t, `payload.ok`, got["filter"])
	got = nil
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"filter": ""}, &got))
	require.NotContains(t, got, "filter", `"" removes it`)
}
