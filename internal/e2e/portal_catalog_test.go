package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/app"
)

// The portal's event-type catalog, in the browser, on a hookd of its own
// (its catalog would give every other test's endpoints warnings): the
// Event types page shows each type's description, its schema as a table
// of fields and as JSON, its examples and a deprecated badge; the
// endpoint form offers the catalog's types to tick beside the text field
// that takes wildcards; the endpoint page names the entries matching no
// type, and its test sends a chosen type's example.
func TestPortalEventTypes(t *testing.T) {
	b := newBrowser(t)
	dev := checkedDev(t, func(*app.DevConfig) {})
	c := &apiClient{t: t, dev: dev}
	rc := newReceiver(t, nil)
	tenant := "portal-types"
	c.putTenant(tenant)
	for name, body := range map[string]map[string]any{
		"invoice.paid": {"description": "An invoice was paid in full. Sent once per invoice.",
			"schema": json.RawMessage(`{"type":"object","required":["invoice_id","amount","currency"],"properties":{
				"invoice_id":{"type":"string","description":"The invoice's ID.","pattern":"^in_"},
				"amount":{"type":"integer","minimum":1,"description":"In the currency's smallest unit."},
				"currency":{"enum":["EUR","USD"]},
				"customer":{"type":"object","properties":{"email":{"type":"string","format":"email"}}},
				"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"}}}}}}`),
			"examples": []json.RawMessage{json.RawMessage(`{"invoice_id":"in_42","amount":1500,"currency":"EUR","customer":{"email":"ada@example.com"},"lines":[{"sku":"A-1"}]}`)}},
		"invoice.voided": {"description": "Use invoice.cancelled.", "deprecated": true},
		"order.created":  {"description": "An order was placed."},
	} {
		require.Equal(t, http.StatusCreated, c.do("PUT", "/v1/event-types/"+name, body, nil), name)
	}

	b.signIn(c.portalLink(tenant))
	b.open(dev.APIURL + "/portal/event-types")
	require.Equal(t, "Event types", b.text("nav a[aria-current=page]"))
	paid := b.text("#type-invoice\\.paid")
	require.Contains(t, paid, "An invoice was paid in full.")
	for _, want := range []string{"amount\tinteger\trequired\t≥ 1\tIn the currency's smallest unit.", "currency\tone of \"EUR\", \"USD\"\trequired",
		"customer.email\tstring\toptional\tformat \"email\"", "lines[].sku\tstring\toptional", "invoice_id\tstring\trequired\tpattern \"^in_\""} {
		require.Contains(t, paid, want)
	}
	require.Contains(t, b.text("#type-invoice\\.paid pre.example"), `"invoice_id": "in_42"`, "the example, indented")
	require.Contains(t, b.text("#type-invoice\\.voided h2"), "deprecated")
	require.Contains(t, b.text("#type-order\\.created"), "No schema: any JSON object.")
	b.do(chromedp.Click(chromedp.CSS("#type-invoice\\.paid .schema-json summary")))
	require.Contains(t, b.text("#type-invoice\\.paid .schema-json pre"), `"required": [`)
	b.shoot("portal-event-types")

	// The form: tick a catalog type, type a wildcard and a misspelt name.
	b.open(dev.APIURL + "/portal/endpoints/new")
	require.Contains(t, b.text("#event-type-picks"), "invoice.voided deprecated Use invoice.cancelled.")
	b.fill("#url", rc.URL)
	b.do(chromedp.Click(chromedp.CSS(`input[name=event_type_pick][value="invoice.paid"]`)))
	b.fill("#event_types", "order.*, order.shiped")
	b.shoot("portal-endpoint-form-types")
	b.submit(`form.form button[type=submit]`)
	require.Contains(t, b.text(".notice"), "Endpoint created.")
	id := strings.TrimPrefix(b.path(), "/portal/endpoints/")
	var ep endpoint
	require.Equal(t, http.StatusOK, c.do("GET", "/v1/endpoints/"+id, nil, &ep))
	require.Equal(t, []string{"invoice.paid", "order.*", "order.shiped"}, ep.EventTypes, "ticked, then typed")
	require.Contains(t, b.text("#type-warnings"), "order.shiped")
	require.NotContains(t, b.text("#type-warnings"), "order.*", "the wildcard matches order.created")

	// The endpoint's test sends the chosen type's example.
	b.do(chromedp.SetValue(chromedp.CSS("#test-event-type"), "invoice.paid"))
	b.submit(`form[action$="/test"] button`)
	require.Contains(t, b.text("#test-result"), "success")
	require.Equal(t, "invoice.paid", b.fieldValue("#test-event-type"), "the type sent stays chosen")
	b.shoot("portal-endpoint-types")
	require.Eventually(t, func() bool { return len(rc.Hits()) == 1 }, 5*time.Second, 20*time.Millisecond)
	require.JSONEq(t, `{"invoice_id":"in_42","amount":1500,"currency":"EUR","customer":{"email":"ada@example.com"},"lines":[{"sku":"A-1"}]}`, string(rc.Hits()[0].Body))

	// Editing shows the ticked type ticked and the rest typed.
	b.open(dev.APIURL + "/portal/endpoints/" + id + "/edit")
	checked, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.querySelector('input[name=event_type_pick][value="invoice.paid"]').checked`))
	require.NoError(t, err)
	require.True(t, checked)
	require.Equal(t, "order.*, order.shiped", b.fieldValue("#event_types"))
}
