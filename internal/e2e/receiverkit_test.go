package e2e

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/receiver/reference"
	"github.com/hookd/hookd/signing"
)

// reservedListener listens on a free loopback port; the endpoint needs the
// receiver's URL before the receiver (which needs the endpoint's secret)
// exists.
func reservedListener(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	return ln
}

// serveReference runs a reference receiver with an in-memory inbox on ln
// until the test ends.
func serveReference(t *testing.T, ln net.Listener, cfg reference.Config) *reference.Receiver {
	t.Helper()
	rr, err := reference.New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rr.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
		require.NoError(t, rr.Close())
	})
	return rr
}

// The lost-ACK case: the receiver commits the first delivery and drops the
// connection without answering; hookd retries with the same webhook-id, the
// receiver answers it as a duplicate, and exactly one business effect exists.
func TestReferenceReceiverDropAfterCommit(t *testing.T) {
	t.Parallel()
	api := newAPI(t)
	ln := reservedListener(t)
	ep := api.createEndpoint(map[string]any{"url": "http://" + ln.Addr().String() + "/webhooks",
		"event_types": []string{"kit.drop"}, "retry_schedule": []string{"1s"}})
	rr := serveReference(t, ln, reference.Config{Secrets: []string{ep.Secret}, Faults: reference.Faults{DropAfterCommit: 1}})

	a := api.send(`{"type":"kit.drop","payload":{"order":"ord_7"}}`)
	id := a.Deliveries[0].ID
	d := api.waitDelivery(id, 15*time.Second)
	require.EqualValues(t, "delivered", d.Status)
	require.Equal(t, 2, d.Attempts)
	require.Equal(t, "connection_closed", d.Timeline[0].ErrorClass)
	require.EqualValues(t, "retryable", d.Timeline[0].Outcome)
	require.Equal(t, 200, d.Timeline[1].Status)

	ctx := context.Background()
	require.EqualValues(t, 2, rr.Requests())
	require.EqualValues(t, 1, rr.Duplicates(), "the retry carried the same webhook-id")
	n, err := rr.Effects(ctx, id)
	require.NoError(t, err)
	require.Equal(t, 1, n, "exactly one business effect")
	st, err := rr.Stats(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int{id: 1}, st.Effects)
	require.EqualValues(t, 1, st.Dropped)
	require.EqualValues(t, 1, st.Accepted)
}

// signedPost posts body to url signed as delivery id at ts with secret.
func signedPost(t *testing.T, url, secret, id string, ts time.Time, body string) int {
	t.Helper()
	key, err := signing.DecodeSecret(secret)
	require.NoError(t, err)
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(signing.HeaderID, id)
	req.Header.Set(signing.HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set(signing.HeaderSignature, signing.Signer{HMACKeys: [][]byte{key}}.Sign(id, ts, []byte(body)))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// A forged signature, a replayed old timestamp and one from the future are
// refused with 401 and leave no effect; the genuine message is accepted.
func TestReferenceReceiverRefusesForgedAndReplayed(t *testing.T) {
	t.Parallel()
	secret, err := signing.NewSecret()
	require.NoError(t, err)
	stranger, err := signing.NewSecret()
	require.NoError(t, err)
	ln := reservedListener(t)
	url := "http://" + ln.Addr().String() + "/webhooks"
	rr := serveReference(t, ln, reference.Config{Secrets: []string{secret}})
	now := time.Now()
	body := `{"order":"ord_9"}`

	require.Equal(t, http.StatusUnauthorized, signedPost(t, url, stranger, "dlv_forged", now, body), "forged")
	require.Equal(t, http.StatusUnauthorized, signedPost(t, url, secret, "dlv_replayed", now.Add(-10*time.Minute), body), "replayed")
	require.Equal(t, http.StatusUnauthorized, signedPost(t, url, secret, "dlv_future", now.Add(10*time.Minute), body), "future")
	// A stranger who learns a real delivery ID gets no 2xx for it either.
	require.Equal(t, http.StatusOK, signedPost(t, url, secret, "dlv_genuine", now, body), "genuine")
	require.Equal(t, http.StatusUnauthorized, signedPost(t, url, stranger, "dlv_genuine", now, body), "forged duplicate")

	st, err := rr.Stats(context.Background())
	require.NoError(t, err)
	require.Equal(t, map[string]int{"dlv_genuine": 1}, st.Effects)
	require.EqualValues(t, 4, st.Rejected)
	require.EqualValues(t, 0, st.Duplicates)
}
