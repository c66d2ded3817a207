package e2e

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// scrapeMetrics GETs /metrics on the API's listener with token ("": no
// Authorization header) and returns the status and body.
func scrapeMetrics(t *testing.T, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", shared.APIURL+"/metrics", nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// TestMetricsNeedTheAPIKey: /metrics on the API's listener lists every
// tenant's endpoint IDs, so without the platform's API key it answers
// 401 with the JSON error and none of them.
func TestMetricsNeedTheAPIKey(t *testing.T) {
	api := newAPI(t)
	ep := api.createEndpoint(map[string]any{"url": newReceiver(t, nil).URL, "event_types": []string{"metricsauth.test"}})
	api.waitDelivery(api.send(`{"type":"metricsauth.test","payload":{}}`).Deliveries[0].ID, 10*time.Second)

	for _, cred := range []string{"", "hk_wrong"} {
		code, body := scrapeMetrics(t, cred)
		require.Equal(t, http.StatusUnauthorized, code, "credential %q", cred)
		require.JSONEq(t, `{"error":{"code":"unauthorized","message":"missing, invalid, expired or revoked API key or token"}}`, body)
		require.NotContains(t, body, ep.ID)
	}
	code, body := scrapeMetrics(t, shared.APIKey)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, ep.ID)
}
