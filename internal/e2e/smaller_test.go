package e2e

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/cli"
)

// `hookd events list` keeps its columns to the events it lists: a long
// ID, as hookd's own events have (type:reason:endpoint:time), does not
// pad every other row out to its width.
func TestEventsListColumnsFitShortIDs(t *testing.T) {
	t.Parallel()
	c := newAPI(t)
	tenant := "events-cols-" + uniq()
	c.putTenant(tenant)
	c.createEndpoint(map[string]any{"url": newReceiver(t, nil).URL, "tenant_id": tenant, "event_types": []string{"cols.*"}})
	long := "hookd.endpoint.unhealthy:circuit_opened:ep_0123456789abcdefghjkmnpqrs:" + strconv.FormatInt(time.Now().Unix(), 10)
	c.send(`{"event_id":"` + long + `","type":"cols.long","tenant_id":"` + tenant + `","payload":{}}`)
	c.send(`{"event_id":"evt_short","type":"cols.short","tenant_id":"` + tenant + `","payload":{}}`)

	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), "test", []string{"events", "list", "--api-url", c.dev.APIURL, "--api-key", c.dev.APIKey, "--tenant", tenant}, strings.NewReader(""), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	var short string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "evt_short") {
			short = line
		}
	}
	require.NotEmpty(t, short, out.String())
	require.Less(t, len(short), len(long), "the short event's row is not padded to the long ID:\n%s", out.String())
	require.NotRegexp(t, `\S {12,}\S`, short, "no wide gaps in a short row:\n%s", out.String())
}

// The hookd_dead_letters gauge follows a new dead letter within a few
// seconds of it being parked, not at the next 30 s refresh.
func TestDeadLetterGaugeFollowsQuickly(t *testing.T) {
	c := newAPI(t)
	refusing := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusBadRequest) })
	c.createEndpoint(map[string]any{"url": refusing.URL, "event_types": []string{"gauge.dead"}})
	gauge := func() float64 {
		code, body := scrapeMetrics(t, shared.APIKey)
		require.Equal(t, http.StatusOK, code)
		m := regexp.MustCompile(`(?m)^hookd_dead_letters (\S+)$`).FindStringSubmatch(body)
		require.NotNil(t, m, "hookd_dead_letters in the scrape")
		v, err := strconv.ParseFloat(m[1], 64)
		require.NoError(t, err)
		return v
	}
	time.Sleep(1500 * time.Millisecond) // any refresh already asked for is done
	before := gauge()
	id := c.send(`{"type":"gauge.dead","payload":{}}`).Deliveries[0].ID
	c.waitDeadLetter(id)
	parked := time.Now()
	require.Eventually(t, func() bool { return gauge() > before }, 5*time.Second, 100*time.Millisecond,
		"hookd_dead_letters still %v", before)
	t.Logf("gauge followed %v after the dead letter was visible", time.Since(parked).Round(10*time.Millisecond))
}
