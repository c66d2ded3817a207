package e2e

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/cli"
)

// listedDelivery is a delivery as GET /v1/deliveries lists it.
type listedDelivery = wire.DeliveryRow

// listDeliveries reads every page of GET /v1/deliveries with q, limit
// at a time.
func (c *apiClient) listDeliveries(q url.Values, limit string) []listedDelivery {
	c.t.Helper()
	q.Set("limit", limit)
	var all []listedDelivery
	for range 50 {
		var page wire.DeliveryPage
		require.Equal(c.t, http.StatusOK, c.do("GET", "/v1/deliveries?"+q.Encode(), nil, &page))
		all = append(all, page.Data...)
		if page.NextCursor == "" {
			return all
		}
		q.Set("cursor", page.NextCursor)
	}
	c.t.Fatal("more than 50 pages")
	return nil
}

func ids(ds []listedDelivery) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	return out
}

// A delivery is listed once, with its current state, whatever its runs:
// one that failed and was redriven to success is one "delivered" row with
// both runs' attempts and the 200, not also a "failed" one; a status
// filter matches the current state; the order is the deliveries'
// creation, newest first, a pending one in its place below newer
// completed ones; pages of one say the same. The CLI and the portal list
// the same.
func TestDeliveryListedOnceWithItsCurrentState(t *testing.T) {
	t.Parallel()
	c := newAPI(t)
	tenant := "list-once-" + uniq()
	c.putTenant(tenant)
	slow := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) })
	fixable := newSwitchable(http.StatusNotFound)
	refusing := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) })
	epSlow := c.createEndpoint(map[string]any{"url": slow.URL, "tenant_id": tenant, "event_types": []string{"list.slow"}, "retry_schedule": []string{"1h"}})
	c.createEndpoint(map[string]any{"url": fixable.server(t).URL, "tenant_id": tenant, "event_types": []string{"list.fixable"}})
	c.createEndpoint(map[string]any{"url": refusing.URL, "tenant_id": tenant, "event_types": []string{"list.refused"}})
	send := func(typ string) string {
		a := c.send(`{"type":"` + typ + `","tenant_id":"` + tenant + `","payload":{}}`)
		require.Len(t, a.Deliveries, 1)
		time.Sleep(5 * time.Millisecond) // distinct creation times
		return a.Deliveries[0].ID
	}

	pending := send("list.slow") // oldest: retried in an hour
	require.Eventually(t, func() bool { return len(slow.Hits()) == 1 }, 10*time.Second, 20*time.Millisecond)
	redriven := send("list.fixable")
	require.EqualValues(t, "failed", c.waitDelivery(redriven, 10*time.Second).Status)
	c.waitDeadLetter(redriven)
	failed := send("list.refused")
	require.EqualValues(t, "failed", c.waitDelivery(failed, 10*time.Second).Status)
	fixable.failStatus.Store(0)
	require.Equal(t, http.StatusAccepted, c.do("POST", "/v1/dead-letters/"+redriven+"/redrive", map[string]string{"reason": "fixed"}, nil))
	require.Eventually(t, func() bool {
		var d deliveryState
		return c.do("GET", "/v1/deliveries/"+redriven, nil, &d) == http.StatusOK && d.Status == "delivered"
	}, 15*time.Second, 50*time.Millisecond)
	newest := send("list.fixable")
	require.EqualValues(t, "delivered", c.waitDelivery(newest, 10*time.Second).Status)

	want := []string{newest, failed, redriven, pending}
	var all []listedDelivery
	require.Eventually(t, func() bool { // visibility catches up with the redriven run's close
		all = c.listDeliveries(url.Values{"tenant_id": {tenant}}, "50")
		return len(all) == len(want) && all[2].Status == "delivered"
	}, 10*time.Second, 100*time.Millisecond, "each delivery once: %v", all)
	require.Equal(t, want, ids(all), "newest first by creation, the pending one in its place")
	byID := map[string]listedDelivery{}
	for _, d := range all {
		byID[d.ID] = d
	}
	d := byID[redriven]
	require.Equal(t, listedDelivery{ID: redriven, Status: "delivered", Attempts: 2, Runs: 2, LastStatus: 200}, listedDelivery{ID: d.ID, Status: d.Status, Attempts: d.Attempts, Runs: d.Runs, LastStatus: d.LastStatus},
		"the current run's status, both runs' attempts, the latest attempt's status")
	require.EqualValues(t, "pending", byID[pending].Status)
	require.Equal(t, 1, byID[pending].Attempts)
	require.Equal(t, 503, byID[pending].LastStatus)
	require.EqualValues(t, "failed", byID[failed].Status)
	require.Equal(t, 404, byID[failed].LastStatus)
	for i := 1; i < len(all); i++ {
		require.False(t, all[i].CreatedAt.After(all[i-1].CreatedAt), "ordered by creation")
	}

	require.Equal(t, want, ids(c.listDeliveries(url.Values{"tenant_id": {tenant}}, "1")), "pages of one: the same, once each")
	for status, wantIDs := range map[string][]string{
		"failed":    {failed},
		"delivered": {newest, redriven},
		"pending":   {pending},
		"exhausted": {},
	} {
		got := ids(c.listDeliveries(url.Values{"tenant_id": {tenant}, "status": {status}}, "50"))
		require.Equal(t, wantIDs, got, "status=%s matches the current state", status)
	}
	got := ids(c.listDeliveries(url.Values{"tenant_id": {tenant}, "endpoint_id": {epSlow.ID}}, "50"))
	require.Equal(t, []string{pending}, got)

	// The CLI: one row per delivery, with its attempts and last status.
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), "test", []string{"deliveries", "list", "--api-url", c.dev.APIURL, "--api-key", c.dev.APIKey, "--tenant", tenant}, strings.NewReader(""), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.Regexp(t, `(?m)^DELIVERY\s+EVENT TYPE\s+ENDPOINT\s+TENANT\s+STATUS\s+ATTEMPTS\s+LAST\s+CREATED\s*$`, out.String())
	require.Equal(t, 1, strings.Count(out.String(), redriven), out.String())
	require.Regexp(t, regexp.MustCompile(`(?m)^`+redriven+`\s+list\.fixable\s+\S+\s+`+tenant+`\s+delivered\s+2\s+200\s`), out.String())
	var order []string
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "dlv_") {
			order = append(order, f[0])
		}
	}
	require.Equal(t, want, order, out.String())

	// The portal's Deliveries page: once each, in the same order.
	hc := portalSession(t, c.portalLink(tenant))
	status, page := portalPage(t, hc, "GET", "/portal/deliveries", nil)
	require.Equal(t, http.StatusOK, status)
	rows := regexp.MustCompile(`href="/portal/deliveries/(dlv_[0-9a-z]+)"`).FindAllStringSubmatch(page, -1)
	var listed []string
	for _, m := range rows {
		listed = append(listed, m[1])
	}
	require.Equal(t, want, listed, "the portal lists each delivery once, newest first")
	status, page = portalPage(t, hc, "GET", "/portal/deliveries?status=failed", nil)
	require.Equal(t, http.StatusOK, status)
	require.NotContains(t, page, redriven, "a delivery that later succeeded is not failed")
	require.Contains(t, page, failed)
}
