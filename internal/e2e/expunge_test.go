package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/cli"
	"github.com/hookd/hookd/internal/codec"
)

func (c *apiClient) expunge(id, reason string) eventRecord {
	c.t.Helper()
	var ev eventRecord
	require.Equal(c.t, http.StatusOK, c.do("POST", "/v1/events/"+id+"/expunge", map[string]any{"reason": reason}, &ev))
	return ev
}

// waitStatus waits until the delivery's status is want.
func (c *apiClient) waitStatus(id, want string) {
	c.t.Helper()
	require.Eventually(c.t, func() bool {
		var d deliveryState
		c.do("GET", "/v1/deliveries/"+id, nil, &d)
		return string(d.Status) == want
	}, 30*time.Second, 50*time.Millisecond, "delivery %s never %s", id, want)
}

// TestExpungeErasesEverywhere expunges an event whose delivery waits to
// retry and one whose delivery is a dead letter, on a hookd dev of its
// own, then scans every file of its data dir with every key hookd still
// holds: neither marker is recoverable, while an untouched event's is
// (the scan's control), its deliveries unchanged. The API, the CLI and
// the codec server show the expunged events as such. With per-event keys
// off the same expunge leaves the marker recoverable from Temporal's
// files with the namespace key (the scan can fail), and says so.
func TestExpungeErasesEverywhere(t *testing.T) {
	t.Run("per-event keys", func(t *testing.T) { testExpunge(t, false) })
	t.Run("without them (control)", func(t *testing.T) { testExpunge(t, true) })
}

func testExpunge(t *testing.T, noKeys bool) {
	var dir string
	dev := ownDev(t, func(c *app.DevConfig) { c.Payload.NoEventKeys, dir = noKeys, c.DataDir })
	api := &apiClient{t: t, dev: dev}
	failing := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) })
	refusing := newReceiver(t, func(_ int, w http.ResponseWriter) { w.WriteHeader(http.StatusUnprocessableEntity) })
	fine := newReceiver(t, nil)
	api.createEndpoint(map[string]any{"url": failing.URL, "event_types": []string{"pending.*"}, "retry_schedule": []string{"1h"}})
	api.createEndpoint(map[string]any{"url": refusing.URL, "event_types": []string{"dead.*"}, "retry_schedule": []string{"1s"}})
	api.createEndpoint(map[string]any{"url": fine.URL, "event_types": []string{"kept.*"}})

	mPending, mDead, mKept, mOther := marker("erase-pending"), marker("erase-dead"), marker("kept"), marker("other-pending")
	post := func(eventType, m string) (string, string) {
		id := marker("evt")
		a := api.send(fmt.Sprintf(`{"event_id":%q,"type":%q,"payload":{"email":"%s@example.com"}}`, id, eventType, m))
		require.Len(t, a.Deliveries, 1)
		return id, a.Deliveries[0].ID
	}
	pendingEvt, pendingDlv := post("pending.checked", mPending)
	deadEvt, deadDlv := post("dead.checked", mDead)
	_, keptDlv := post("kept.checked", mKept)
	_, otherDlv := post("pending.checked", mOther)
	require.EqualValues(t, "delivered", api.waitDelivery(keptDlv, 30*time.Second).Status)
	api.waitDeadLetter(deadDlv)
	require.Eventually(t, func() bool { return len(failing.Hits()) >= 2 }, 30*time.Second, 20*time.Millisecond, "both pending deliveries attempted once")

	// Expunge the pending one and the dead-lettered one.
	for _, id := range []string{pendingEvt, deadEvt} {
		ev := api.expunge(id, "erasure request")
		require.NotZero(t, ev.ExpungedAt)
		assert.True(t, strings.HasPrefix(ev.ExpungedBy, "api-key:"), ev.ExpungedBy)
		assert.Equal(t, "erasure request", ev.ExpungeReason)
		assert.Nil(t, ev.Payload)
		if noKeys {
			assert.EqualValues(t, "namespace_key_only", ev.TemporalCopy, "an event without a key says its Temporal copy is sealed by the namespace key alone")
		} else {
			assert.EqualValues(t, "unreadable", ev.TemporalCopy)
		}
	}
	api.waitStatus(pendingDlv, "expunged")
	api.waitStatus(deadDlv, "expunged")
	var got eventRecord
	require.Equal(t, http.StatusOK, api.do("GET", "/v1/events/"+deadEvt, nil, &got))
	require.EqualValues(t, "expunged", got.Deliveries[0].Status)

	// The dead letter is gone and refuses redrive, saying why; the
	// expunged event's ID stays taken.
	var dl deadLetter
	api.do("GET", "/v1/dead-letters/"+deadDlv, nil, &dl)
	assert.EqualValues(t, "closed", dl.State)
	assert.True(t, dl.PayloadExpunged)
	var e apiError
	require.Equal(t, http.StatusConflict, api.do("POST", "/v1/dead-letters/"+deadDlv+"/redrive", map[string]any{"reason": "try"}, &e))
	assert.Contains(t, e.Error.Message, "expunged")
	var waiting wire.DeadLetterPage
	api.do("GET", "/v1/dead-letters", nil, &waiting)
	for _, d := range waiting.Data {
		assert.NotEqual(t, deadDlv, d.ID, "no waiting dead letter of an expunged event")
	}
	require.Equal(t, http.StatusConflict, api.do("POST", "/v1/events", fmt.Sprintf(`{"event_id":%q,"type":"pending.checked","payload":{"email":"%s@example.com"}}`, pendingEvt, mPending), nil),
		"a re-post of an expunged event is still a conflict")

	// Others are untouched: the kept event reads whole, the other pending
	// delivery still waits for its retry.
	assert.Contains(t, string(api.deliveryView(keptDlv).Payload), mKept)
	var other deliveryState
	api.do("GET", "/v1/deliveries/"+otherDlv, nil, &other)
	assert.EqualValues(t, "pending", other.Status)
	view := api.deliveryView(pendingDlv)
	assert.Empty(t, view.Payload)
	hits := len(failing.Hits())

	// The CLI and the codec server show it expunged.
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), "test", []string{"events", "get", pendingEvt, "--api-url", dev.APIURL, "--api-key", dev.APIKey}, strings.NewReader(""), &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "expunged")
	assert.Contains(t, out.String(), "erasure request")
	assert.NotContains(t, out.String(), mPending)
	decoded := decodeInput(t, dev, pendingDlv)
	assert.NotContains(t, decoded, mPending)
	assert.Contains(t, decoded, `"payload_expunged":true`, "the codec server marks the body expunged")
	assert.Contains(t, decodeInput(t, dev, keptDlv), mKept, "and shows a live event's body")

	time.Sleep(500 * time.Millisecond)
	assert.Equal(t, hits, len(failing.Hits()), "the expunged delivery is not attempted again")
	dev.Stop(context.Background())

	keys := keysOf(t, dir)
	require.Nil(t, keys.events[pendingEvt], "the store holds no key of an expunged event")
	keptIn := keys.scanFor(t, dir, mKept)
	t.Logf("kept marker recovered from %v", keptIn)
	require.Contains(t, keptIn, "hookd.db", "control: the scan recovers a kept event's marker from the store")
	require.True(t, slices.ContainsFunc(keptIn, func(f string) bool { return strings.HasPrefix(f, "temporal.db") }),
		"control: and from Temporal's files, through the codec and the event's key")
	require.NotEmpty(t, keys.scanFor(t, dir, mOther), "control: and the other pending one's")
	for _, m := range []string{mPending, mDead} {
		found := keys.scanFor(t, dir, m)
		if noKeys {
			assert.NotEmpty(t, found, "without a per-event key, Temporal's copy opens with the namespace key")
			continue
		}
		assert.Empty(t, found, "the marker %s is recoverable from %v", m, found)
	}
}

// decodeInput posts a delivery's workflow input, as Temporal holds it,
// to the codec server's /decode with the API key, and returns what it
// answers: what the Web UI shows.
func decodeInput(t *testing.T, dev *app.Dev, deliveryID string) string {
	t.Helper()
	resp, err := dev.Client.WorkflowService().GetWorkflowExecutionHistory(context.Background(), &workflowservice.GetWorkflowExecutionHistoryRequest{
		Namespace: "default", Execution: historyRequest(deliveryID).GetExecution(), MaximumPageSize: 1,
	})
	require.NoError(t, err)
	input := resp.GetHistory().GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetInput()
	raw, err := json.Marshal(map[string]any{"payloads": input.GetPayloads()})
	require.NoError(t, err)
	req, err := http.NewRequest("POST", dev.APIURL+codec.Path+"/decode", bytes.NewReader(raw))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+dev.APIKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Namespace", "default")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", body)
	var decoded struct {
		Payloads []struct {
			Data []byte `json:"data"`
		} `json:"payloads"`
	}
	require.NoError(t, json.Unmarshal(body, &decoded))
	require.Len(t, decoded.Payloads, 1)
	return string(decoded.Payloads[0].Data)
}
