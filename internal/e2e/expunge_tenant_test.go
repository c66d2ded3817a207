package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/app"
)

// tenantExpunge is GET /v1/tenants/{id}/expunge.
type tenantExpunge = wire.TenantExpunge

// waitTenantExpunged waits until the deleted tenant's expunge job is done.
func (c *apiClient) waitTenantExpunged(tenant string) tenantExpunge {
	c.t.Helper()
	var p tenantExpunge
	require.Eventually(c.t, func() bool {
		c.do("GET", "/v1/tenants/"+tenant+"/expunge", nil, &p)
		return p.State == "completed"
	}, 90*time.Second, 100*time.Millisecond, "the expunge of tenant %s never completed: %+v", tenant, p)
	return p
}

// TestTenantDeletionExpungesItsEvents deletes a tenant with more events
// than one page of its job, one of them waiting to retry and one expunged
// by its own token before, and stops hookd dev right after: restarted, the
// job finishes in the background and says so. Every event of the tenant
// is expunged, then its record deleted; its waiting delivery ends
// expunged, and the platform's event of the same type is untouched.
func TestTenantDeletionExpungesItsEvents(t *testing.T) {
	var dir, temporalAddr string
	first := ownDev(t, func(c *app.DevConfig) { dir, temporalAddr = c.DataDir, c.TemporalAddr })
	api := &apiClient{t: t, dev: first}
	tenant := "gone-" + uniq()
	api.putTenant(tenant)
	token := api.tenantToken(tenant, "1h")
	failing := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) })
	fine := newReceiver(t, nil)
	api.createEndpoint(map[string]any{"url": failing.URL, "tenant_id": tenant, "event_types": []string{"leave.waiting"}, "retry_schedule": []string{"1h"}})
	api.createEndpoint(map[string]any{"url": fine.URL, "tenant_id": tenant, "event_types": []string{"leave.done"}})
	api.createEndpoint(map[string]any{"url": fine.URL, "event_types": []string{"leave.done"}})

	m := marker("tenant-data")
	var ids []string
	send := func(eventType string, tenantID string) accepted {
		id := marker("evt")
		ids = append(ids, id)
		body := fmt.Sprintf(`{"event_id":%q,"type":%q,"payload":{"note":%q}}`, id, eventType, m)
		if tenantID != "" {
			body = fmt.Sprintf(`{"event_id":%q,"type":%q,"tenant_id":%q,"payload":{"note":%q}}`, id, eventType, tenantID, m)
		}
		return api.send(body)
	}
	waiting := send("leave.waiting", tenant).Deliveries[0].ID
	const n = 120 // more than a page (100)
	ownDlv := send("leave.done", tenant).Deliveries[0].ID
	for range n - 2 {
		send("leave.done", tenant)
	}
	tenantIDs := append([]string(nil), ids...)
	platformEvent := send("leave.done", "")
	require.EqualValues(t, "delivered", api.waitDelivery(platformEvent.Deliveries[0].ID, 30*time.Second).Status)
	require.Eventually(t, func() bool { return len(failing.Hits()) >= 1 }, 30*time.Second, 20*time.Millisecond)

	// The tenant's token expunges one of its own events first.
	own := api.asTenant(token).expunge(tenantIDs[1], "customer asked")
	require.NotZero(t, own.ExpungedAt)
	assert.Equal(t, "customer asked", own.ExpungeReason)
	require.Equal(t, http.StatusNotFound, api.asTenant(token).do("POST", "/v1/events/"+platformEvent.EventID+"/expunge", map[string]any{"reason": "not mine"}, nil),
		"a tenant token cannot expunge another scope's event")

	// The portal's delivery page says the payload is expunged.
	require.EqualValues(t, "delivered", api.waitDelivery(ownDlv, 30*time.Second).Status)
	hc := portalSession(t, api.portalLink(tenant))
	resp, err := hc.Get(first.APIURL + "/portal/deliveries/" + ownDlv)
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(page), "Expunged: this event's payload was erased")
	assert.NotContains(t, string(page), m)
	b := newBrowser(t)
	b.signIn(api.portalLink(tenant))
	b.open(first.APIURL + "/portal/deliveries/" + ownDlv)
	assert.Contains(t, b.text(".expunged"), "payload was erased")
	b.shoot("portal-delivery-expunged")

	require.Equal(t, http.StatusNoContent, api.do("DELETE", "/v1/tenants/"+tenant, nil, nil))
	var p tenantExpunge
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/tenants/"+tenant+"/expunge", nil, &p))
	assert.Contains(t, []wire.TenantExpungeState{wire.TenantExpungeStateRunning, wire.TenantExpungeStateCompleted}, p.State)
	first.Stop(context.Background())

	second := ownDev(t, func(c *app.DevConfig) { c.DataDir, c.TemporalAddr = dir, temporalAddr })
	api = &apiClient{t: t, dev: second}
	p = api.waitTenantExpunged(tenant)
	assert.Equal(t, int64(n), p.Expunged+p.AlreadyExpunged)
	assert.GreaterOrEqual(t, p.AlreadyExpunged, int64(1), "the event its token expunged")

	for _, id := range tenantIDs {
		require.Equal(t, http.StatusNotFound, api.do("GET", "/v1/events/"+id, nil, nil), "expunged, then its record deleted: the ID is free")
	}
	api.waitStatus(waiting, "expunged")
	assert.Contains(t, string(api.deliveryView(platformEvent.Deliveries[0].ID).Payload), m, "the platform's event is untouched")
	var kept eventRecord
	api.do("GET", "/v1/events/"+platformEvent.EventID, nil, &kept)
	assert.Zero(t, kept.ExpungedAt)
}
