package e2e

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// opEvent is an operational event as a subscriber received it.
type opEvent struct {
	Type, EventID, DeliveryID string
	Body                      map[string]json.RawMessage
}

func (e opEvent) str(key string) string {
	var s string
	_ = json.Unmarshal(e.Body[key], &s)
	return s
}

// opEventsAbout reads the verified hookd.* events among hits whose body's
// key is value, in order of arrival, one per delivery (a redelivery of the
// same webhook-id is not a second event).
func opEventsAbout(t *testing.T, hits []hit, secret, key, value string) []opEvent {
	t.Helper()
	var out []opEvent
	seen := map[string]bool{}
	for _, h := range hits {
		typ := h.Header.Get("hookd-event-type")
		if !strings.HasPrefix(typ, "hookd.") {
			continue
		}
		id := verify(t, h, secret)
		ev := opEvent{Type: typ, EventID: h.Header.Get("hookd-event-id"), DeliveryID: id}
		require.NoError(t, json.Unmarshal(h.Body, &ev.Body), "%s", h.Body)
		if ev.str(key) != value || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, ev)
	}
	return out
}

func typesOf(evs []opEvent) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

// Every change of a tenant's endpoint and every transition of its
// deliveries reaches, once each, the platform's endpoint subscribed to
// hookd.* and that tenant's, never another tenant's (created, updated,
// dead-lettered, redriven, recovered in the redriven run, disabled,
// enabled, deleted); dead letters say how
// the last attempt ended, never the URL; and no event is emitted about
// the deliveries of operational events themselves.
func TestOperationalEventsReachPlatformAndTenant(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	acme, globex := "opev-acme-"+uniq(), "opev-globex-"+uniq()
	api.putTenant(acme)
	api.putTenant(globex)
	platform, mine, theirs := newReceiver(t, nil), newReceiver(t, nil), newReceiver(t, nil)
	pSub := api.createEndpoint(map[string]any{"url": platform.URL, "event_types": []string{"hookd.*"}})
	aSub := api.createEndpoint(map[string]any{"url": mine.URL, "tenant_id": acme, "event_types": []string{"hookd.*"}})
	gSub := api.createEndpoint(map[string]any{"url": theirs.URL, "tenant_id": globex, "event_types": []string{"hookd.*"}})
	// A subscriber whose deliveries of operational events die: no event
	// about them.
	failing := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) })
	fSub := api.createEndpoint(map[string]any{"url": failing.URL, "tenant_id": acme, "event_types": []string{"hookd.endpoint.updated"}, "retry_schedule": []string{"1s"}})

	rcv := newSwitchable(http.StatusInternalServerError)
	srv := rcv.server(t)
	eventType := "opev." + uniq()
	ep := api.createEndpoint(map[string]any{"url": srv.URL + "/private/path", "tenant_id": acme, "event_types": []string{eventType}, "retry_schedule": []string{"1s"}})
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"description": "renamed"}, nil))

	id := api.send(`{"type":"` + eventType + `","tenant_id":"` + acme + `","payload":{"n":1}}`).Deliveries[0].ID
	api.waitDeadLetter(id)
	rcv.failStatus.Store(0)
	require.Equal(t, http.StatusAccepted, api.do("POST", "/v1/dead-letters/"+id+"/redrive", map[string]string{"reason": "fixed"}, nil))
	require.Eventually(t, func() bool {
		var d deliveryState
		return api.do("GET", "/v1/deliveries/"+id, nil, &d) == http.StatusOK && d.Status == "delivered"
	}, 20*time.Second, 100*time.Millisecond)

	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": false}, nil))
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"enabled": true}, nil))
	require.Equal(t, http.StatusNoContent, api.do("DELETE", "/v1/endpoints/"+ep.ID, nil, nil))

	want := []string{"hookd.endpoint.created", "hookd.endpoint.updated", "hookd.delivery.dead_lettered", "hookd.dead_letter.redriven",
		"hookd.delivery.recovered", "hookd.endpoint.disabled", "hookd.endpoint.enabled", "hookd.endpoint.deleted"}
	about := func(rc *receiver, secret string) []opEvent {
		evs := append(opEventsAbout(t, rc.Hits(), secret, "endpoint_id", ep.ID), nil...)
		slices.SortStableFunc(evs, func(a, b opEvent) int { return slices.Index(want, a.Type) - slices.Index(want, b.Type) })
		return evs
	}
	var got []opEvent
	require.Eventually(t, func() bool { got = about(platform, pSub.Secret); return len(got) >= len(want) },
		30*time.Second, 100*time.Millisecond, "platform got %v", typesOf(got))
	var tenantGot []opEvent
	require.Eventually(t, func() bool { tenantGot = about(mine, aSub.Secret); return len(tenantGot) >= len(want) },
		30*time.Second, 100*time.Millisecond, "tenant got %v", typesOf(tenantGot))
	time.Sleep(time.Second) // anything more would have come by now
	got, tenantGot = about(platform, pSub.Secret), about(mine, aSub.Secret)
	require.Equal(t, want, typesOf(got), "each once, to the platform")
	require.Equal(t, want, typesOf(tenantGot), "each once, to the tenant")
	assert.Empty(t, opEventsAbout(t, theirs.Hits(), gSub.Secret, "endpoint_id", ep.ID), "never to another tenant")

	for i, ev := range got {
		assert.Equal(t, ev.EventID+":tenant", tenantGot[i].EventID, "the tenant's copy of %s", ev.Type)
		assert.Equal(t, acme, ev.str("tenant_id"))
		assert.NotContains(t, string(ev.Body["url"]), "private", "no URL in %s", ev.Type)
	}
	created := got[0]
	assert.True(t, strings.HasPrefix(created.str("by"), "api-key:"), "by the platform's key: %s", created.str("by"))
	assert.JSONEq(t, `["description"]`, string(got[1].Body["fields"]))
	dead := got[2]
	assert.ElementsMatch(t, []string{"delivery_id", "event_id", "event_type", "endpoint_id", "tenant_id", "run", "at", "status", "attempts", "last_status", "last_error_class"}, keys(dead.Body))
	assert.Equal(t, id, dead.str("delivery_id"))
	assert.Equal(t, "exhausted", dead.str("status"))
	assert.JSONEq(t, `500`, string(dead.Body["last_status"]))
	assert.Equal(t, "http_5xx", dead.str("last_error_class"))
	assert.Equal(t, "fixed", got[3].str("reason"))
	assert.JSONEq(t, `2`, string(got[3].Body["run"]))
	assert.Equal(t, "delivered", got[4].str("status"))
	assert.JSONEq(t, `2`, string(got[4].Body["run"]))
	assert.Equal(t, "manual", got[5].str("disabled_reason"))
	assert.NotContains(t, strings.Join(func() []string {
		var b []string
		for _, ev := range got {
			b = append(b, string(ev.Body["event_type"]))
		}
		return b
	}(), ","), "hookd.", "no event about a delivery of an operational event")

	// The failing subscriber's delivery of hookd.endpoint.updated died,
	// and nobody was told.
	var page wire.DeadLetterPage
	require.Eventually(t, func() bool {
		return api.do("GET", "/v1/dead-letters?endpoint_id="+fSub.ID, nil, &page) == http.StatusOK && len(page.Data) > 0
	}, 30*time.Second, 100*time.Millisecond)
	time.Sleep(time.Second)
	for _, ev := range opEventsAbout(t, platform.Hits(), pSub.Secret, "endpoint_id", fSub.ID) {
		assert.NotEqual(t, "hookd.delivery.dead_lettered", ev.Type, "no event about the death of an operational event's delivery")
	}
}

// A receiver answering 410 Gone disables its endpoint at once, reason
// gone; the delivery that got the 410 is held like the rest (no attempt
// spent, not dead-lettered), the platform and the tenant are told, and a
// recover delivers it.
func TestGoneDisablesTheEndpoint(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	acme := "gone-" + uniq()
	api.putTenant(acme)
	platform, mine := newReceiver(t, nil), newReceiver(t, nil)
	pSub := api.createEndpoint(map[string]any{"url": platform.URL, "event_types": []string{"hookd.endpoint.disabled"}})
	aSub := api.createEndpoint(map[string]any{"url": mine.URL, "tenant_id": acme, "event_types": []string{"hookd.endpoint.*"}})

	rcv := newSwitchable(http.StatusGone)
	srv := rcv.server(t)
	eventType := "gone." + uniq()
	ep := api.createEndpoint(map[string]any{"url": srv.URL, "tenant_id": acme, "event_types": []string{eventType}, "retry_schedule": []string{"1s"}})
	id := api.send(`{"type":"` + eventType + `","tenant_id":"` + acme + `","payload":{}}`).Deliveries[0].ID

	held := waitHeld(t, api, id)
	assert.EqualValues(t, "pending", held.Status)
	assert.Equal(t, 0, held.Attempts, "the 410 spent no attempt")
	var view endpoint
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+ep.ID, nil, &view))
	assert.False(t, view.Enabled)
	assert.EqualValues(t, "gone", view.DisabledReason)
	assert.Equal(t, http.StatusNotFound, api.do("GET", "/v1/dead-letters/"+id, nil, nil), "not a dead letter")

	for _, s := range []struct {
		rc     *receiver
		secret string
	}{{platform, pSub.Secret}, {mine, aSub.Secret}} {
		var evs []opEvent
		require.Eventually(t, func() bool {
			evs = opEventsAbout(t, s.rc.Hits(), s.secret, "endpoint_id", ep.ID)
			return slices.Contains(typesOf(evs), "hookd.endpoint.disabled")
		}, 20*time.Second, 100*time.Millisecond, "got %v", typesOf(evs))
		i := slices.Index(typesOf(evs), "hookd.endpoint.disabled")
		assert.Equal(t, "gone", evs[i].str("reason"))
		assert.Equal(t, "gone", evs[i].str("disabled_reason"))
		assert.Equal(t, "hookd", evs[i].str("by"))
	}

	rcv.failStatus.Store(0)
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+ep.ID+"/recover", map[string]string{"reason": "receiver is back"}, nil))
	d := api.waitDelivery(id, 20*time.Second)
	require.EqualValues(t, "delivered", d.Status)
	require.Equal(t, 1, d.Attempts)
	require.Equal(t, 1, rcv.delivered()[id])
	view.DisabledReason = ""
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+ep.ID, nil, &view))
	assert.True(t, view.Enabled)
	assert.Empty(t, view.DisabledReason)
}
