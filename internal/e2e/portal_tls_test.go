package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The portal's endpoint page of an endpoint with TLS settings shows the
// client certificate's subject and when it expires, and the private CA;
// an expired certificate is marked expired. The delivery through the
// receiver that requires the certificate is what the settings are for.
func TestPortalEndpointTLS(t *testing.T) {
	b := newBrowser(t)
	c := newAPI(t)
	tenant := "portal-tls-" + uniq()
	c.putTenant(tenant)
	mtls := newTLSReceiver(t)
	valid := mtls.ClientCA.Issue(t, "billing-client", time.Now().Add(-time.Hour), time.Date(2031, 5, 1, 12, 0, 0, 0, time.UTC))
	expired := mtls.ClientCA.Issue(t, "old-client", time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour))
	ep := c.createEndpoint(map[string]any{"url": mtls.URL + "/billing", "tenant_id": tenant, "event_types": []string{"tls.shown"},
		"tls": map[string]string{"client_certificate": valid.CertPEM, "client_key": valid.KeyPEM, "ca": mtls.ServerCA.PEM}})
	old := c.createEndpoint(map[string]any{"url": mtls.URL + "/old", "tenant_id": tenant, "event_types": []string{"tls.old"},
		"tls": map[string]string{"client_certificate": expired.CertPEM, "client_key": expired.KeyPEM, "ca": mtls.ServerCA.PEM}})
	a := c.send(`{"type":"tls.shown","tenant_id":"` + tenant + `","payload":{"n":1}}`)
	require.EqualValues(t, "delivered", c.waitDelivery(a.Deliveries[0].ID, 15*time.Second).Status)
	require.Equal(t, []string{"billing-client"}, mtls.seen())

	b.signIn(c.portalLink(tenant))
	b.open(shared.APIURL + "/portal/endpoints/" + ep.ID)
	cert := b.text("#tls-certificate")
	assert.Contains(t, cert, "CN=billing-client")
	assert.Contains(t, cert, "expires May 1, 2031, 09:00:00 PM GMT+9", "12:00 UTC, as the viewer in Tokyo reads it")
	assert.Contains(t, b.body(), "CN=Receiver CA", "the private CA")
	b.shoot("endpoint-tls")

	b.open(shared.APIURL + "/portal/endpoints/" + old.ID)
	assert.Contains(t, b.text("#tls-certificate"), "CN=old-client")
	expiredText, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS("#tls-certificate .cert-expired")))
	require.NoError(t, err, "the expiry is marked")
	assert.Contains(t, expiredText, "expired")
	b.shoot("endpoint-tls-expired")
}
