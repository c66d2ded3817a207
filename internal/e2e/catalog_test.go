package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/app"
)

// The catalog tests run on hookd devs of their own (held to the OpenAPI
// document as the shared one is): a catalog changes what every
// endpoint's create answers say, and --require-event-types what every
// post may be.

const invoiceSchema = `{"type":"object","required":["amount","currency"],"properties":{"amount":{"type":"integer","minimum":1},"currency":{"enum":["EUR","USD"]}}}`

// The platform puts, lists, gets and deletes types; a tenant reads the
// same catalog and may change nothing; a schema that is no schema and an
// example that fails it are refused naming the field.
func TestCatalogCRUD(t *testing.T) {
	t.Parallel()
	api := &apiClient{t: t, dev: checkedDev(t, func(*app.DevConfig) {})}
	body := map[string]any{"description": "An invoice was paid.", "schema": json.RawMessage(invoiceSchema),
		"examples": []json.RawMessage{json.RawMessage(`{"amount": 1500, "currency": "EUR"}`)}}
	var got wire.CatalogType
	require.Equal(t, http.StatusCreated, api.do("PUT", "/v1/event-types/invoice.paid", body, &got))
	require.JSONEq(t, invoiceSchema, string(got.Schema))
	require.Equal(t, []json.RawMessage{json.RawMessage(`{"amount":1500,"currency":"EUR"}`)}, got.Examples, "stored compact")
	body["deprecated"] = true
	require.Equal(t, http.StatusOK, api.do("PUT", "/v1/event-types/invoice.paid", body, &got), "a second put replaces")
	require.True(t, got.Deprecated)
	require.Equal(t, http.StatusCreated, api.do("PUT", "/v1/event-types/order.created", map[string]any{"description": "No schema."}, nil))

	api.putTenant("cat-acme")
	tenant := api.asTenant(api.tenantToken("cat-acme", "1h"))
	var list wire.EventTypePage
	require.Equal(t, http.StatusOK, tenant.do("GET", "/v1/event-types", nil, &list), "every tenant reads the catalog")
	require.Len(t, list.Data, 2)
	require.Equal(t, "invoice.paid", list.Data[0].Name)
	require.True(t, list.Data[0].Deprecated, "shown as deprecated")
	require.Empty(t, list.Data[1].Schema)
	require.Equal(t, http.StatusOK, tenant.do("GET", "/v1/event-types/order.created", nil, &got))
	require.Equal(t, "No schema.", got.Description)
	var e apiError
	require.Equal(t, http.StatusForbidden, tenant.do("PUT", "/v1/event-types/tenant.made", map[string]any{}, &e), "a tenant changes nothing")
	require.Equal(t, http.StatusForbidden, tenant.do("DELETE", "/v1/event-types/order.created", nil, &e))

	var se apiError
	require.Equal(t, http.StatusBadRequest, api.do("PUT", "/v1/event-types/bad.schema", `{"schema":{"type":"nope"}}`, &se))
	require.Equal(t, "schema", se.Error.Field)
	require.Contains(t, se.Error.Message, `at "/type"`)
	require.Equal(t, http.StatusBadRequest, api.do("PUT", "/v1/event-types/bad.ref", `{"schema":{"$ref":"file:///etc/passwd"}}`, &se))
	require.Equal(t, "schema", se.Error.Field)
	require.Equal(t, http.StatusBadRequest, api.do("PUT", "/v1/event-types/bad.example", map[string]any{"schema": json.RawMessage(invoiceSchema),
		"examples": []json.RawMessage{json.RawMessage(`{"amount":1,"currency":"EUR"}`), json.RawMessage(`{"amount":"1","currency":"EUR"}`)}}, &se))
	require.Equal(t, "examples[1]", se.Error.Field)
	require.Equal(t, "/amount", se.Error.Details[0].Pointer)
	require.EqualValues(t, "got string, want integer", se.Error.Details[0].Reason)
	require.Equal(t, http.StatusBadRequest, api.do("PUT", "/v1/event-types/hookd.mine", map[string]any{}, &e))
	require.Equal(t, "name", e.Error.Field, "hookd's own namespace stays hookd's")
	require.Equal(t, http.StatusNotFound, api.do("GET", "/v1/event-types/bad.example", nil, nil), "a refused put stores nothing")

	require.Equal(t, http.StatusNoContent, api.do("DELETE", "/v1/event-types/order.created", nil, nil))
	require.Equal(t, http.StatusNotFound, api.do("GET", "/v1/event-types/order.created", nil, nil))
	require.Equal(t, http.StatusNotFound, api.do("DELETE", "/v1/event-types/order.created", nil, nil))
}

// Ingest checks a payload against its type's schema: an invalid one is
// 400 naming the payload with the failures' pointers, and is not
// recorded; a valid one is delivered. Types without a schema, deprecated
// types and types the catalog lacks are accepted. An endpoint subscribed
// to entries matching no catalog type is created with warnings naming
// them. A test event can carry a type's example.
func TestCatalogAtIngestAndEndpoints(t *testing.T) {
	t.Parallel()
	api := &apiClient{t: t, dev: checkedDev(t, func(*app.DevConfig) {})}
	rc := newReceiver(t, nil)
	require.Equal(t, http.StatusCreated, api.do("PUT", "/v1/event-types/invoice.paid", map[string]any{"schema": json.RawMessage(invoiceSchema),
		"examples": []json.RawMessage{json.RawMessage(`{"amount":42,"currency":"USD"}`)}}, nil))
	require.Equal(t, http.StatusCreated, api.do("PUT", "/v1/event-types/invoice.voided", map[string]any{"deprecated": true}, nil))

	var created endpoint
	require.Equal(t, http.StatusCreated, api.do("POST", "/v1/endpoints", map[string]any{"url": rc.URL,
		"event_types": []string{"invoice.*", "invoice.paid", "order.shiped", "nothing.*", "hookd.endpoint.disabled"}}, &created))
	require.Len(t, created.Warnings, 2, "%+v", created.Warnings)
	require.Equal(t, "order.shiped", created.Warnings[0].Value)
	require.Equal(t, "event_types", created.Warnings[0].Field)
	require.Equal(t, "nothing.*", created.Warnings[1].Value)
	ep := created
	created.Warnings = nil
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"event_types": []string{"invoice.*"}}, &created))
	require.Empty(t, created.Warnings, "every entry matches a type")
	require.Equal(t, http.StatusOK, api.do("PATCH", "/v1/endpoints/"+ep.ID, map[string]any{"event_types": []string{"invoice.*", "invoice.payed"}}, &created))
	require.Len(t, created.Warnings, 1)
	require.Equal(t, "invoice.payed", created.Warnings[0].Value)
	var plain map[string]any // raw: the check is that the key is absent
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/endpoints/"+ep.ID, nil, &plain))
	require.NotContains(t, plain, "warnings", "only create and update answers carry them")

	var se apiError
	require.Equal(t, http.StatusBadRequest, api.do("POST", "/v1/events",
		`{"event_id":"evt_cat_bad","type":"invoice.paid","payload":{"amount":"12","currency":"GBP"}}`, &se))
	require.Equal(t, "payload", se.Error.Field)
	require.Len(t, se.Error.Details, 2)
	require.Equal(t, "/amount", se.Error.Details[0].Pointer)
	require.Equal(t, "/currency", se.Error.Details[1].Pointer)
	require.Contains(t, se.Error.Message, `at "/amount": got string, want integer`)
	require.Equal(t, http.StatusNotFound, api.do("GET", "/v1/events/evt_cat_bad", nil, nil), "a refused event is not recorded")
	api.requireNoDelivery("evt_cat_bad", ep.ID)
	// A batch refuses that event alone, with the same answer.
	var batch wire.EventBatchResults
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/events/batch", `{"events":[
		{"event_id":"evt_cat_b1","type":"invoice.paid","payload":{"amount":0,"currency":"EUR"}},
		{"event_id":"evt_cat_b2","type":"invoice.paid","payload":{"amount":7,"currency":"EUR"}}]}`, &batch))
	require.Equal(t, http.StatusBadRequest, batch.Results[0].Status)
	require.Equal(t, "payload", batch.Results[0].Error.Field)
	require.Equal(t, "/amount", batch.Results[0].Error.Details[0].Pointer)
	require.Equal(t, http.StatusAccepted, batch.Results[1].Status)

	good := api.send(`{"event_id":"evt_cat_good","type":"invoice.paid","payload":{"amount":12,"currency":"EUR"}}`)
	require.EqualValues(t, "delivered", api.waitDelivery(good.Deliveries[0].ID, 10*time.Second).Status)
	voided := api.send(`{"event_id":"evt_cat_voided","type":"invoice.voided","payload":{"anything":true}}`)
	require.Len(t, voided.Deliveries, 1, "a deprecated type is still accepted")
	api.send(`{"event_id":"evt_cat_unknown","type":"not.in.catalog","payload":{}}`)

	var res testResult
	require.Equal(t, http.StatusOK, api.do("POST", "/v1/endpoints/"+ep.ID+"/test", map[string]any{"event_type": "invoice.paid"}, &res))
	require.Equal(t, 200, res.Status)
	var e apiError
	require.Equal(t, http.StatusBadRequest, api.do("POST", "/v1/endpoints/"+ep.ID+"/test", map[string]any{"event_type": "invoice.voided"}, &e))
	require.Equal(t, "event_type", e.Error.Field, "a type without examples")
	// The example is the only payload with these values; the events sent
	// above may arrive after the test event, so it is looked for.
	example := map[string]any{"amount": 42.0, "currency": "USD"}
	var bodies []map[string]any
	for _, h := range rc.Hits() {
		var b map[string]any
		require.NoError(t, json.Unmarshal(h.Body, &b))
		bodies = append(bodies, b)
	}
	require.Contains(t, bodies, example, "the test event carries the example")
}

// With --require-event-types, a type the catalog lacks is refused
// naming the type, and nothing is recorded; catalog types go through.
func TestRequireEventTypes(t *testing.T) {
	t.Parallel()
	api := &apiClient{t: t, dev: checkedDev(t, func(c *app.DevConfig) { c.RequireEventTypes = true })}
	rc := newReceiver(t, nil)
	ep := api.createEndpoint(map[string]any{"url": rc.URL})
	var e apiError
	require.Equal(t, http.StatusBadRequest, api.do("POST", "/v1/events", `{"event_id":"evt_req_1","type":"order.created","payload":{}}`, &e))
	require.Equal(t, "type", e.Error.Field)
	require.Contains(t, e.Error.Message, "not in the event-type catalog")
	require.Equal(t, http.StatusNotFound, api.do("GET", "/v1/events/evt_req_1", nil, nil))

	require.Equal(t, http.StatusCreated, api.do("PUT", "/v1/event-types/order.created", map[string]any{"description": "An order."}, nil))
	a := api.send(`{"event_id":"evt_req_1","type":"order.created","payload":{}}`)
	require.Equal(t, []string{ep.ID}, endpointIDs(a), "accepted once in the catalog")
	require.EqualValues(t, "delivered", api.waitDelivery(a.Deliveries[0].ID, 10*time.Second).Status)

	require.Equal(t, http.StatusNoContent, api.do("DELETE", "/v1/event-types/order.created", nil, nil))
	require.Equal(t, http.StatusBadRequest, api.do("POST", "/v1/events", `{"event_id":"evt_req_2","type":"order.created","payload":{}}`, &e),
		"refused again once deleted")
}
