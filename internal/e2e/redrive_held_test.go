package e2e

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// tenSeconds is a retry schedule of ten attempts a second apart: the
// circuit opens before a delivery exhausts it.
var tenSeconds = []string{"1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s", "1s"}

// circuitOpener is a receiver that fails events of deadType permanently
// (a dead letter at once) and answers 503 to the rest, which open the
// circuit.
func circuitOpener(t *testing.T, deadType string) *httptest.Server {
	return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("hookd-event-type"), deadType) {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
}

// TestRedriveIntoAnOpenCircuitSaysSo: a redrive accepted while the
// endpoint's circuit is open answers held_by "circuit_open" with the
// cooldown's end, instead of a silent 202.
func TestRedriveIntoAnOpenCircuitSaysSo(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	srv := circuitOpener(t, "held.dead")
	api.createEndpoint(map[string]any{"url": srv.URL, "event_types": []string{"held.*"}, "retry_schedule": tenSeconds})
	dead := api.send(`{"type":"held.dead","payload":{}}`).Deliveries[0].ID
	require.EqualValues(t, "failed", api.waitDelivery(dead, 10*time.Second).Status)
	var waiting []string
	for range 3 {
		waiting = append(waiting, api.send(`{"type":"held.down","payload":{}}`).Deliveries[0].ID)
	}

	var got wire.RedriveRequested
	require.Eventually(t, func() bool {
		// The circuit opens after five failures; its cooldown starts at 2s.
		var d deliveryState
		if api.do("GET", "/v1/deliveries/"+waiting[0], nil, &d) != http.StatusOK || d.WaitReason != "circuit open" ||
			time.Until(d.NextAttemptAt) < time.Second {
			return false
		}
		got.HeldBy = ""
		status := api.do("POST", "/v1/dead-letters/"+dead+"/redrive", `{"reason":"try again"}`, &got)
		require.Contains(t, []int{http.StatusAccepted, http.StatusNotFound}, status) // 404 once redriven
		return got.HeldBy != ""
	}, 40*time.Second, 100*time.Millisecond, "no redrive answered held_by")
	require.EqualValues(t, "circuit_open", got.HeldBy)
	require.NotZero(t, got.HeldUntil)
	require.True(t, got.HeldUntil.After(time.Now().Add(-time.Second)), "held until %s", got.HeldUntil)
}

// A redrive from the portal into an open circuit says so there: the
// redriven dead letter is marked as waiting, and a banner names the
// paused endpoint, when the pause ends and what to do (resume
// deliveries, with the button a session that may recover gets); a bulk
// redrive of the endpoint's dead letters shows the banner on its job's
// page.
func TestPortalRedriveIntoAnOpenCircuitSaysSo(t *testing.T) {
	t.Parallel()
	c := newAPI(t)
	tenant := "held-portal-" + uniq()
	c.putTenant(tenant)
	srv := circuitOpener(t, "heldp.dead")
	ep := c.createEndpoint(map[string]any{"url": srv.URL, "tenant_id": tenant, "event_types": []string{"heldp.*"}, "retry_schedule": tenSeconds})
	dead := c.send(`{"type":"heldp.dead","tenant_id":"` + tenant + `","payload":{"n":1}}`).Deliveries[0].ID
	c.waitDeadLetter(dead)
	c.waitDeadLetter(c.send(`{"type":"heldp.dead","tenant_id":"` + tenant + `","payload":{"n":2}}`).Deliveries[0].ID)
	var waiting []string
	for range 3 {
		waiting = append(waiting, c.send(`{"type":"heldp.down","tenant_id":"` + tenant + `","payload":{}}`).Deliveries[0].ID)
	}
	hc := portalSession(t, c.portalLink(tenant))
	_, page := portalPage(t, hc, "GET", "/portal/dead-letters", nil)
	csrf := csrfField.FindStringSubmatch(page)
	require.NotNil(t, csrf)
	require.Eventually(t, func() bool {
		// The circuit opens after five failures; its cooldown starts at 2s.
		var d deliveryState
		return c.do("GET", "/v1/deliveries/"+waiting[0], nil, &d) == http.StatusOK && d.WaitReason == "circuit open" &&
			time.Until(d.NextAttemptAt) > time.Second
	}, 40*time.Second, 100*time.Millisecond, "the circuit opens")

	status, page := portalPage(t, hc, "POST", "/portal/dead-letters/redrive", url.Values{"csrf": {csrf[1]}, "id": {dead}})
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, page, "1 of 1 dead letters redriven")
	require.Contains(t, page, "redriven, waiting")
	require.Contains(t, page, `id="held-`+ep.ID+`"`)
	require.Contains(t, page, "These deliveries wait: the endpoint is paused.")
	require.Contains(t, page, srv.URL)
	require.Regexp(t, `when the pause ends at <time datetime="[^"]+">`, page)
	require.Contains(t, page, `action="/portal/endpoints/`+ep.ID+`/recover"`)
	require.NotContains(t, page, "/v1/", "no API paths for a customer")

	// All in the filter of that endpoint: the job's page says it too.
	status, page = portalPage(t, hc, "POST", "/portal/dead-letters/redrive", url.Values{"csrf": {csrf[1]}, "all": {"1"}, "endpoint_id": {ep.ID}})
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, page, "Redrive of all dead letters in the filter")
	require.Contains(t, page, `id="held-`+ep.ID+`"`)
	require.Contains(t, page, "These deliveries wait: the endpoint is paused.")
}
