package e2e

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// A tenant deleted and created again under the same ID is a new tenant:
// its token and portal session reach none of the event records,
// deliveries and dead letters the deleted one left behind, by ID or in a
// list, and the deleted tenant's event records (payloads included) are
// gone for the platform too.
func TestTenantReCreatedSeesNothingOfTheDeleted(t *testing.T) {
	c := newAPI(t)
	id := "reborn-" + uniq()
	c.putTenant(id)
	ok := newReceiver(t, nil)
	down := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusBadRequest) })
	c.createEndpoint(map[string]any{"url": ok.URL, "tenant_id": id, "event_types": []string{"reborn.ok"}})
	c.createEndpoint(map[string]any{"url": down.URL, "tenant_id": id, "event_types": []string{"reborn.dead"}})
	delivered := c.send(`{"type":"reborn.ok","tenant_id":"` + id + `","payload":{"secret":"of the first tenant"}}`)
	dead := c.send(`{"type":"reborn.dead","tenant_id":"` + id + `","payload":{"secret":"parked"}}`)
	require.Len(t, delivered.Deliveries, 1)
	require.Len(t, dead.Deliveries, 1)
	require.EqualValues(t, "delivered", c.waitDelivery(delivered.Deliveries[0].ID, 15*time.Second).Status)
	c.waitDeadLetter(dead.Deliveries[0].ID)

	first := c.asTenant(c.tenantToken(id, "1h"))
	require.Equal(t, http.StatusOK, first.do("GET", "/v1/events/"+delivered.EventID, nil, nil), "the owner reads its event")
	require.Equal(t, http.StatusOK, first.do("GET", "/v1/deliveries/"+delivered.Deliveries[0].ID, nil, nil))

	require.Equal(t, http.StatusNoContent, c.do("DELETE", "/v1/tenants/"+id, nil, nil))
	c.waitTenantExpunged(id)
	c.putTenant(id)
	next := c.asTenant(c.tenantToken(id, "1h"))

	for _, path := range []string{
		"/v1/events/" + delivered.EventID,
		"/v1/events/" + dead.EventID,
		"/v1/deliveries/" + delivered.Deliveries[0].ID,
		"/v1/deliveries/" + dead.Deliveries[0].ID,
		"/v1/dead-letters/" + dead.Deliveries[0].ID,
	} {
		require.Equal(t, http.StatusNotFound, next.do("GET", path, nil, nil), "the ID's next owner reads %s", path)
	}
	require.Equal(t, http.StatusNotFound, next.do("POST", "/v1/dead-letters/"+dead.Deliveries[0].ID+"/redrive", map[string]any{}, nil))
	require.Equal(t, http.StatusNotFound, c.do("GET", "/v1/events/"+delivered.EventID, nil, nil), "the deleted tenant's records are gone")

	for path, page := range map[string]any{"/v1/events": &wire.EventPage{}, "/v1/deliveries": &wire.DeliveryPage{},
		"/v1/dead-letters": &wire.DeadLetterPage{}, "/v1/events?tenant_id=" + id: &wire.EventPage{}} {
		require.Equal(t, http.StatusOK, next.do("GET", path, nil, page), path)
		require.Zero(t, pageLen(page), "%s lists what the deleted tenant left: %+v", path, page)
	}
	var deliveries wire.DeliveryPage
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/deliveries?tenant_id="+id, nil, &deliveries))
	require.Empty(t, deliveries.Data, "the platform's list of the tenant is of its current incarnation")
	var summary wire.DeadLetterSummary
	require.Equal(t, http.StatusOK, next.do("GET", "/v1/dead-letters/summary", nil, &summary))
	require.Zero(t, summary.Total)
	var started wire.RedriveStarted
	next.do("POST", "/v1/dead-letters/redrive", map[string]any{"tenant_id": id}, &started)
	require.Zero(t, started.Matched, "a bulk redrive of the new tenant matches none of the old dead letters")

	hc := portalSession(t, c.portalLink(id))
	require.Equal(t, http.StatusNotFound, portalStatus(t, hc, "/portal/deliveries/"+delivered.Deliveries[0].ID))
	require.Equal(t, http.StatusNotFound, portalStatus(t, hc, "/portal/deliveries/"+dead.Deliveries[0].ID))

	// The new tenant's own events work as ever, under the same event ID
	// too: the old record went with the deletion.
	c.createEndpoint(map[string]any{"url": ok.URL, "tenant_id": id, "event_types": []string{"reborn.ok"}})
	again := c.send(`{"event_id":"` + delivered.EventID + `","type":"reborn.ok","tenant_id":"` + id + `","payload":{"secret":"of the second tenant"}}`)
	require.False(t, again.Duplicate)
	require.Len(t, again.Deliveries, 1)
	require.EqualValues(t, "delivered", next.waitDelivery(again.Deliveries[0].ID, 15*time.Second).Status)
	require.Equal(t, http.StatusOK, next.do("GET", "/v1/events/"+again.EventID, nil, nil))
}

// pageLen is the number of rows of a decoded list page: a pointer to one
// of wire's pages, whose rows are its Data.
func pageLen(page any) int { return reflect.ValueOf(page).Elem().FieldByName("Data").Len() }
