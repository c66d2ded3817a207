package e2e

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
)

// TestForgedCursorRefusedAtOnce: page cursors are signed with a key only
// the deployment holds. A cursor forged as an unkeyed checksum would be
// (token + SHA-256 of a public label) is a 400 naming "cursor" at once,
// without reaching Temporal; a cursor the API returned still pages.
func TestForgedCursorRefusedAtOnce(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	// A type of its own: a run before this one in the process (-count)
	// left an endpoint whose receiver is closed.
	typ := "cursor.forged." + uniq()
	ep := api.createEndpoint(map[string]any{"url": newReceiver(t, nil).URL, "event_types": []string{typ}})
	for range 2 {
		api.waitDelivery(api.send(`{"type":"` + typ + `","payload":{}}`).Deliveries[0].ID, 10*time.Second)
	}
	var page wire.DeliveryPage
	// Visibility lags the deliveries: page once both are listed, or the
	// first page's cursor may lead to a page the second has not reached.
	require.Eventually(t, func() bool {
		return api.do("GET", "/v1/deliveries?"+url.Values{"endpoint_id": {ep.ID}}.Encode(), nil, &page) == http.StatusOK && len(page.Data) == 2
	}, 10*time.Second, 100*time.Millisecond, "both deliveries listed")
	q := url.Values{"endpoint_id": {ep.ID}, "limit": {"1"}}
	require.Eventually(t, func() bool {
		page.NextCursor = ""
		return api.do("GET", "/v1/deliveries?"+q.Encode(), nil, &page) == http.StatusOK && page.NextCursor != ""
	}, 10*time.Second, 100*time.Millisecond, "a first page with a next cursor")
	q.Set("cursor", page.NextCursor)
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/deliveries?"+q.Encode(), nil, &page), "the API's own cursor pages")
	require.Len(t, page.Data, 1)

	token := []byte("forged page token")
	sum := sha256.Sum256(append([]byte("hookd page cursor\x00"), token...))
	forged := base64.RawURLEncoding.EncodeToString(append(token, sum[:8]...))
	for _, list := range []string{"/v1/deliveries", "/v1/dead-letters"} {
		start := time.Now()
		var e apiError
		require.Equal(t, http.StatusBadRequest, api.do("GET", list+"?cursor="+forged, nil, &e), list)
		require.Equal(t, "cursor", e.Error.Field, list)
		require.EqualValues(t, "invalid", e.Error.Code, list)
		require.Less(t, time.Since(start), 2*time.Second, list)
	}
}
