package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient"
	"github.com/hookd/hookd/apiclient/wire"
)

// rawJSON is every apiclient answer type: it keeps the API's JSON.
type rawJSON interface{ JSON() json.RawMessage }

// strictly decodes an answer's JSON again into its type, refusing a field
// the type lacks: apiclient reads everything the server sends.
func strictly[T rawJSON](t *testing.T, v T) T {
	t.Helper()
	fresh := reflect.New(reflect.TypeOf(v).Elem()).Interface()
	dec := json.NewDecoder(bytes.NewReader(v.JSON()))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(fresh), "%T from %s", v, v.JSON())
	return v
}

// TestAPIClientContract drives the Go client through every call it has
// against the real API (each exchange also checked against the OpenAPI
// document by the suite's transport): the client sends what the server
// takes and reads all it answers.
func TestAPIClientContract(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := apiclient.New(shared.APIURL, shared.APIKey)
	require.NoError(t, err)
	sfx := uniq()
	tenantID := "contract-" + sfx

	tn, created, err := c.PutTenant(ctx, tenantID, apiclient.TenantInput{Name: "Contract", Metadata: map[string]string{"plan": "pro"}})
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, "pro", strictly(t, tn).Metadata["plan"])
	_, created, err = c.PutTenant(ctx, tenantID, apiclient.TenantInput{Name: "Contract Inc"})
	require.NoError(t, err)
	require.False(t, created)
	got, err := c.GetTenant(ctx, tenantID)
	require.NoError(t, err)
	require.Equal(t, "Contract Inc", strictly(t, got).Name)
	tenants, err := c.ListTenants(ctx, apiclient.Page{Limit: 500})
	require.NoError(t, err)
	strictly(t, tenants)
	tok, err := c.CreateTenantToken(ctx, tenantID, time.Hour)
	require.NoError(t, err)
	require.Equal(t, tenantID, strictly(t, tok).TenantID)

	ok := newReceiver(t, nil)
	refuse := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusBadRequest) })
	url, types, schedule := ok.URL, []string{"contract" + sfx + ".*"}, []string{"1s"}
	ep, err := c.CreateEndpoint(ctx, apiclient.EndpointInput{URL: &url, EventTypes: &types, RetrySchedule: &schedule, TenantID: &tenantID})
	require.NoError(t, err)
	require.NotEmpty(t, strictly(t, ep).Secret)
	require.Equal(t, tenantID, ep.TenantID)
	deadURL := refuse.URL
	dead, err := c.CreateEndpoint(ctx, apiclient.EndpointInput{URL: &deadURL, EventTypes: &types, RetrySchedule: &schedule, TenantID: &tenantID})
	require.NoError(t, err)
	desc := "updated"
	upd, err := c.UpdateEndpoint(ctx, ep.ID, apiclient.EndpointInput{Description: &desc})
	require.NoError(t, err)
	require.Equal(t, "updated", strictly(t, upd).Description)
	fetched, err := c.GetEndpoint(ctx, ep.ID)
	require.NoError(t, err)
	require.Empty(t, strictly(t, fetched).Secret)
	eps, err := c.ListTenantEndpoints(ctx, tenantID, apiclient.Page{})
	require.NoError(t, err)
	require.Len(t, strictly(t, eps).Data, 2)
	rot, err := c.RotateSecret(ctx, ep.ID, time.Minute)
	require.NoError(t, err)
	require.NotEqual(t, ep.Secret, strictly(t, rot).Secret)
	rec, err := c.RecoverEndpoint(ctx, ep.ID, "contract")
	require.NoError(t, err)
	require.Equal(t, wire.RecoveredPreviousCircuitClosed, strictly(t, rec).PreviousCircuit)

	res, err := c.SendEvent(ctx, apiclient.Event{Type: "contract" + sfx + ".created", Payload: json.RawMessage(`{"n":1}`), TenantID: tenantID})
	require.NoError(t, err)
	require.Len(t, strictly(t, res).Deliveries, 2)
	var delivered, deadID string
	for _, d := range res.Deliveries {
		if d.EndpointID == ep.ID {
			delivered = d.ID
		} else {
			deadID = d.ID
		}
	}
	require.Eventually(t, func() bool {
		d, err := c.GetDelivery(ctx, delivered)
		return err == nil && d.Status == "delivered"
	}, 20*time.Second, 50*time.Millisecond)
	d, err := c.GetDelivery(ctx, delivered)
	require.NoError(t, err)
	require.JSONEq(t, `{"n":1}`, string(strictly(t, d).Payload))
	require.NotEmpty(t, d.Timeline)
	ev, err := c.GetEvent(ctx, res.EventID)
	require.NoError(t, err)
	require.Len(t, strictly(t, ev).Deliveries, 2)
	evs, err := c.ListEvents(ctx, apiclient.EventFilter{TenantID: tenantID}, apiclient.Page{})
	require.NoError(t, err)
	require.Len(t, strictly(t, evs).Data, 1)
	ds, err := c.ListDeliveries(ctx, apiclient.DeliveryFilter{TenantID: tenantID}, apiclient.Page{})
	require.NoError(t, err)
	strictly(t, ds)

	// The refusing endpoint's delivery is a dead letter at once.
	filter := apiclient.DeadLetterFilter{TenantID: tenantID, EndpointID: dead.ID, Reasons: []string{"failed"}}
	require.Eventually(t, func() bool {
		page, err := c.ListDeadLetters(ctx, filter, apiclient.Page{})
		return err == nil && len(page.Data) == 1
	}, 20*time.Second, 100*time.Millisecond)
	page, err := c.ListDeadLetters(ctx, filter, apiclient.Page{})
	require.NoError(t, err)
	require.Equal(t, deadID, strictly(t, page).Data[0].ID)
	dl, err := c.GetDeadLetter(ctx, deadID)
	require.NoError(t, err)
	require.Equal(t, wire.DeadLetterStateWaiting, strictly(t, dl).State)
	sum, err := c.TenantDeadLetterSummary(ctx, tenantID)
	require.NoError(t, err)
	require.EqualValues(t, 1, strictly(t, sum).Total)
	rd, err := c.RedriveDeadLetter(ctx, deadID, "contract")
	require.NoError(t, err)
	strictly(t, rd)
	job, err := c.StartRedrive(ctx, apiclient.BulkRedrive{Filter: apiclient.DeadLetterFilter{TenantID: tenantID, Since: time.Now().Add(-time.Hour)}, Rate: 5, Reason: "contract"})
	require.NoError(t, err)
	progress, err := c.RedriveJob(ctx, strictly(t, job).JobID)
	require.NoError(t, err)
	strictly(t, progress)

	_, err = c.GetEndpoint(ctx, "ep_00000000000000000000000000")
	require.True(t, apiclient.IsNotFound(err), "%v", err)
	var apiErr *apiclient.Error
	_, err = c.CreateTenantToken(ctx, tenantID, 2*365*24*time.Hour)
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, "expires_in", apiErr.Field)

	// The portal's settings, put back as they are (the shared hookd's
	// other tests see hookd's own look), and the tenant's branding.
	settings, err := c.GetPortalSettings(ctx)
	require.NoError(t, err)
	_, err = c.PutPortalSettings(ctx, strictly(t, settings).PortalSettings)
	require.NoError(t, err)
	branding, err := c.PutTenantPortalBranding(ctx, tenantID, wire.TenantPortalBranding{ProductName: "Contract Hooks",
		Logo: apiclient.LogoDataURL("image/svg+xml", []byte(logoSVG))})
	require.NoError(t, err)
	require.Equal(t, tenantID, strictly(t, branding).TenantID)
	branding, err = c.GetTenantPortalBranding(ctx, tenantID)
	require.NoError(t, err)
	require.Equal(t, apiclient.LogoDataURL("image/svg+xml", []byte(logoSVG)), strictly(t, branding).Logo)
	_, err = c.PutPortalSettings(ctx, wire.PortalSettings{Theme: "sepia"})
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, "theme", apiErr.Field)

	revoked, err := c.RevokeTenantTokens(ctx, tenantID)
	require.NoError(t, err)
	require.Equal(t, 1, strictly(t, revoked).Revoked)
	require.NoError(t, c.DeleteEndpoint(ctx, ep.ID))
	require.NoError(t, c.DeleteTenant(ctx, tenantID))
}
