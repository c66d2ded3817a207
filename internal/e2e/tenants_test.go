package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/apiclient/wire"
)

// uniq is a suffix that keeps a test's names apart from other tests' on
// the shared hookd.
func uniq() string { return strconv.FormatInt(time.Now().UnixNano(), 36) }

// asTenant is a client that calls with a tenant token.
func (c *apiClient) asTenant(token string) *apiClient {
	return &apiClient{t: c.t, dev: c.dev, token: token}
}

// putTenant creates a tenant (201).
func (c *apiClient) putTenant(id string) {
	c.t.Helper()
	require.Equal(c.t, http.StatusCreated, c.do("PUT", "/v1/tenants/"+id, map[string]any{"name": "Tenant " + id}, nil))
}

// tenantToken issues a token of the tenant valid for expiresIn.
func (c *apiClient) tenantToken(tenant, expiresIn string) string {
	c.t.Helper()
	var out wire.TenantToken
	require.Equal(c.t, http.StatusCreated, c.do("POST", "/v1/tenants/"+tenant+"/tokens", map[string]any{"expires_in": expiresIn}, &out))
	require.NotEmpty(c.t, out.Token)
	return out.Token
}

// requireField checks a 400 that names field.
func (c *apiClient) requireField(method, path string, body any, field string) {
	c.t.Helper()
	var e apiError
	require.Equal(c.t, http.StatusBadRequest, c.do(method, path, body, &e), "%s %s", method, path)
	require.Equal(c.t, field, e.Error.Field, "%s %s", method, path)
}

func TestTenantCRUD(t *testing.T) {
	c := newAPI(t)
	id := "acme:eu-1." + uniq()
	var tn wire.Tenant
	require.Equal(t, http.StatusCreated, c.do("PUT", "/v1/tenants/"+id, map[string]any{"name": "Acme", "metadata": map[string]string{"plan": "pro"}}, &tn))
	require.Equal(t, "Acme", tn.Name)
	require.Equal(t, http.StatusOK, c.do("PUT", "/v1/tenants/"+id, map[string]any{"name": "Acme EU"}, nil), "a second put updates")
	tn.Metadata = nil
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/tenants/"+id, nil, &tn))
	require.Equal(t, "Acme EU", tn.Name)
	require.Empty(t, tn.Metadata, "a put replaces the metadata")

	found := false
	for cursor, pages := "", 0; pages < 1000; pages++ {
		var page wire.TenantPage
		require.Equal(t, http.StatusOK, c.do("GET", "/v1/tenants?limit=2&cursor="+cursor, nil, &page))
		for _, row := range page.Data {
			found = found || row.ID == id
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	require.True(t, found, "the tenant is listed")

	c.requireField("PUT", "/v1/tenants/bad*id", map[string]any{"name": "x"}, "tenant_id")
	c.requireField("PUT", "/v1/tenants/"+id, map[string]any{"nam": "x"}, "nam")
	c.requireField("POST", "/v1/tenants/"+id+"/tokens", map[string]any{"expires_in": "forever"}, "expires_in")
	require.Equal(t, http.StatusNotFound, c.do("POST", "/v1/tenants/nobody-"+uniq()+"/tokens", map[string]any{}, nil))
	require.Equal(t, http.StatusNoContent, c.do("DELETE", "/v1/tenants/"+id, nil, nil))
	require.Equal(t, http.StatusNotFound, c.do("GET", "/v1/tenants/"+id, nil, nil))
	require.Equal(t, http.StatusNotFound, c.do("DELETE", "/v1/tenants/"+id, nil, nil))
}

// An event with tenant_id reaches only that tenant's endpoints, one
// without reaches only the endpoints without a tenant, and one naming an
// unknown tenant starts nothing.
func TestTenantFanOut(t *testing.T) {
	c := newAPI(t)
	sfx := uniq()
	a, b := "fan-a-"+sfx, "fan-b-"+sfx
	c.putTenant(a)
	c.putTenant(b)
	filter := []string{"tfan" + sfx + ".*"}
	eventType := "tfan" + sfx + ".created"
	recv := map[string]*receiver{"a": newReceiver(t, nil), "b": newReceiver(t, nil), "platform": newReceiver(t, nil)}
	eps := map[string]endpoint{}
	for name, tenant := range map[string]string{"a": a, "b": b, "platform": ""} {
		body := map[string]any{"url": recv[name].URL, "event_types": filter}
		if tenant != "" {
			body["tenant_id"] = tenant
		}
		var ep endpoint
		require.Equal(t, http.StatusCreated, c.do("POST", "/v1/endpoints", body, &ep))
		require.Equal(t, tenant, ep.TenantID)
		eps[name] = ep
	}
	c.requireField("POST", "/v1/endpoints", map[string]any{"url": recv["a"].URL, "tenant_id": "nobody-" + sfx}, "tenant_id")
	c.requireField("POST", "/v1/endpoints", map[string]any{"url": recv["a"].URL, "tenant_id": "bad id"}, "tenant_id")

	event := func(tenant string) string {
		body := fmt.Sprintf(`{"type":%q,"payload":{"n":1}`, eventType)
		if tenant != "" {
			body += fmt.Sprintf(`,"tenant_id":%q`, tenant)
		}
		return body + "}"
	}
	toA := c.send(event(a))
	toNone := c.send(event(""))
	require.Len(t, toA.Deliveries, 1)
	require.Equal(t, eps["a"].ID, toA.Deliveries[0].EndpointID)
	require.Len(t, toNone.Deliveries, 1)
	require.Equal(t, eps["platform"].ID, toNone.Deliveries[0].EndpointID)
	c.requireField("POST", "/v1/events", event("nobody-"+sfx), "tenant_id")

	var batch wire.EventBatchResults
	require.Equal(t, http.StatusOK, c.do("POST", "/v1/events/batch", `{"events":[`+event(b)+`,`+event("nobody-"+sfx)+`]}`, &batch))
	require.Equal(t, http.StatusAccepted, batch.Results[0].Status)
	toB := wire.Deref(batch.Results[0].Deliveries)
	require.Len(t, toB, 1)
	require.Equal(t, eps["b"].ID, toB[0].EndpointID)
	require.Equal(t, http.StatusBadRequest, batch.Results[1].Status)
	require.Equal(t, "tenant_id", batch.Results[1].Error.Field)
	require.Empty(t, wire.Deref(batch.Results[1].Deliveries), "an unknown tenant starts nothing")

	for _, id := range []string{toA.Deliveries[0].ID, toNone.Deliveries[0].ID, toB[0].ID} {
		require.EqualValues(t, "delivered", c.waitDelivery(id, 20*time.Second).Status)
	}
	for name, rc := range recv {
		require.Len(t, rc.Hits(), 1, "%s received exactly its own event", name)
	}

	// Lists by tenant, from the store and from Temporal's visibility.
	var listed wire.EndpointPage
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/endpoints?tenant_id="+a, nil, &listed))
	require.Len(t, listed.Data, 1)
	require.Equal(t, eps["a"].ID, listed.Data[0].ID)
	require.Equal(t, http.StatusNotFound, c.do("GET", "/v1/endpoints?tenant_id=nobody-"+sfx, nil, nil))

	var page wire.DeliveryPage
	require.Eventually(t, func() bool {
		page = wire.DeliveryPage{}
		return c.do("GET", "/v1/deliveries?status=delivered&tenant_id="+a, nil, &page) == http.StatusOK && len(page.Data) == 1
	}, 10*time.Second, 100*time.Millisecond, "the tenant's delivery is listed: %+v", page)
	got := page.Data[0]
	require.Equal(t, wire.DeliveryRow{ID: toA.Deliveries[0].ID, EventID: toA.EventID, EndpointID: eps["a"].ID, TenantID: a, Status: "delivered"},
		wire.DeliveryRow{ID: got.ID, EventID: got.EventID, EndpointID: got.EndpointID, TenantID: got.TenantID, Status: got.Status})
	require.Eventually(t, func() bool {
		page = wire.DeliveryPage{}
		return c.do("GET", "/v1/deliveries?event_id="+toNone.EventID, nil, &page) == http.StatusOK && len(page.Data) == 1
	}, 10*time.Second, 100*time.Millisecond, "the platform event's delivery is listed: %+v", page)
	require.Empty(t, page.Data[0].TenantID)
	page = wire.DeliveryPage{}
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/deliveries?status=pending&tenant_id="+a, nil, &page))
	require.Empty(t, page.Data)
	c.requireField("GET", "/v1/deliveries?status=lost", nil, "status")

	// The search attribute answers the temporal CLI's queries.
	count, err := shared.Client.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{
		Query: fmt.Sprintf("WorkflowType = 'Delivery' AND HookdTenantId = '%s'", b),
	})
	require.NoError(t, err)
	require.EqualValues(t, 1, count.GetCount())

	// Deleting a tenant deletes its endpoints.
	require.Equal(t, http.StatusNoContent, c.do("DELETE", "/v1/tenants/"+b, nil, nil))
	require.Equal(t, http.StatusNotFound, c.do("GET", "/v1/endpoints/"+eps["b"].ID, nil, nil))
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/endpoints/"+eps["a"].ID, nil, nil))
	c.requireField("POST", "/v1/events", event(b), "tenant_id")
}

// A delivery still retrying when its tenant is deleted ends "expunged":
// deleting a tenant expunges its events, and nothing more is sent.
func TestDeletingATenantEndsItsPendingDeliveries(t *testing.T) {
	c := newAPI(t)
	tenant := "gone-" + uniq()
	c.putTenant(tenant)
	down := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) })
	var ep endpoint
	require.Equal(t, http.StatusCreated, c.do("POST", "/v1/endpoints", map[string]any{
		"url": down.URL, "tenant_id": tenant, "retry_schedule": []string{"2s", "2s"},
	}, &ep))
	acc := c.send(fmt.Sprintf(`{"type":"gone.x","payload":{},"tenant_id":%q}`, tenant))
	require.Len(t, acc.Deliveries, 1)
	require.Eventually(t, func() bool { return len(down.Hits()) >= 1 }, 10*time.Second, 50*time.Millisecond)

	require.Equal(t, http.StatusNoContent, c.do("DELETE", "/v1/tenants/"+tenant, nil, nil))
	d := c.waitDelivery(acc.Deliveries[0].ID, 20*time.Second)
	require.EqualValues(t, "expunged", d.Status)
	require.Len(t, down.Hits(), d.Attempts, "nothing was sent after the deletion")
}
