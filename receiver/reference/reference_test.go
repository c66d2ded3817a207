package reference_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/receiver"
	"github.com/hookd/hookd/receiver/reference"
	"github.com/hookd/hookd/signing"
)

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// delivery is one signed delivery attempt, resendable byte for byte.
type delivery struct {
	id   string
	body string
	h    http.Header
}

// sign signs body as delivery id at ts under s, as hookd does.
func sign(t *testing.T, s, id string, ts time.Time, body string) delivery {
	t.Helper()
	key, err := signing.DecodeSecret(s)
	require.NoError(t, err)
	signer := signing.Signer{HMACKeys: [][]byte{key}}
	h := http.Header{
		"Content-Type":           {"application/json"},
		signing.HeaderID:         {id},
		signing.HeaderTimestamp:  {strconv.FormatInt(ts.Unix(), 10)},
		signing.HeaderSignature:  {signer.Sign(id, ts, []byte(body))},
		receiver.HeaderEventType: {"order.created"},
		receiver.HeaderEventID:   {"evt_" + id},
	}
	return delivery{id: id, body: body, h: h}
}

// send posts d to url with a real client; it returns the status, or the
// transport error.
func send(t *testing.T, url string, d delivery) (int, http.Header, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/webhooks", bytes.NewBufferString(d.body))
	require.NoError(t, err)
	req.Header = d.h.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header, nil
}

func start(t *testing.T, cfg reference.Config) (*reference.Receiver, string) {
	t.Helper()
	cfg.Secrets = []string{secret}
	r, err := reference.New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv.URL
}

func effects(t *testing.T, r *reference.Receiver, id string) int {
	t.Helper()
	n, err := r.Effects(t.Context(), id)
	require.NoError(t, err)
	return n
}

func stats(t *testing.T, url string) reference.Stats {
	t.Helper()
	resp, err := http.Get(url + "/stats")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var s reference.Stats
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&s))
	return s
}

func TestDropAfterCommitThenDuplicate(t *testing.T) {
	r, url := start(t, reference.Config{Faults: reference.Faults{DropAfterCommit: 1}})
	d := sign(t, secret, "dlv_lost_ack", time.Now(), `{"order":42}`)

	_, _, err := send(t, url, d)
	require.Error(t, err, "the ACK is lost")
	assert.Equal(t, 1, effects(t, r, d.id), "but the effect was committed")

	status, _, err := send(t, url, d)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, 1, effects(t, r, d.id), "the resend is a duplicate")

	s := stats(t, url)
	assert.EqualValues(t, 2, s.Requests)
	assert.EqualValues(t, 1, s.Accepted)
	assert.EqualValues(t, 1, s.Duplicates)
	assert.EqualValues(t, 1, s.Dropped)
	assert.Equal(t, map[string]int{d.id: 1}, s.Effects)
}

func TestDropAlways(t *testing.T) {
	r, url := start(t, reference.Config{Faults: reference.Faults{DropAfterCommit: reference.DropAlways}})
	// Every new commit's answer is lost; a duplicate's gets through.
	for _, id := range []string{"dlv_1", "dlv_2"} {
		d := sign(t, secret, id, time.Now(), `{}`)
		_, _, err := send(t, url, d)
		require.Error(t, err, id)
		status, _, err := send(t, url, d)
		require.NoError(t, err, id)
		assert.Equal(t, http.StatusOK, status, id)
		assert.Equal(t, 1, effects(t, r, d.id), id)
	}
	assert.EqualValues(t, 2, r.Duplicates())
}

func TestInjectedFailures(t *testing.T) {
	r, url := start(t, reference.Config{Faults: reference.Faults{FailFirst: 2, FailStatus: http.StatusTooManyRequests, RetryAfter: "7"}})
	d := sign(t, secret, "dlv_1", time.Now(), `{}`)
	for range 2 {
		status, h, err := send(t, url, d)
		require.NoError(t, err)
		assert.Equal(t, http.StatusTooManyRequests, status)
		assert.Equal(t, "7", h.Get("Retry-After"))
	}
	assert.Equal(t, 0, effects(t, r, d.id), "an injected failure records nothing")
	status, _, err := send(t, url, d)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, 1, effects(t, r, d.id))

	require.NoError(t, r.SetFaults(reference.Faults{AlwaysFail: http.StatusInternalServerError}))
	d2 := sign(t, secret, "dlv_2", time.Now(), `{}`)
	for range 3 {
		status, _, err := send(t, url, d2)
		require.NoError(t, err)
		assert.Equal(t, http.StatusInternalServerError, status)
	}
	require.NoError(t, r.SetFaults(reference.Faults{})) // repaired
	status, _, err = send(t, url, d2)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, 1, effects(t, r, d2.id))
	assert.EqualValues(t, 7, r.Requests())
	assert.EqualValues(t, 5, stats(t, url).InjectedFailures)

	require.Error(t, r.SetFaults(reference.Faults{AlwaysFail: 42}))
}

func TestDelay(t *testing.T) {
	const delay = 30 * time.Millisecond
	_, url := start(t, reference.Config{Faults: reference.Faults{Delay: delay}})
	began := time.Now()
	status, _, err := send(t, url, sign(t, secret, "dlv_1", time.Now(), `{}`))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	assert.GreaterOrEqual(t, time.Since(began), delay)
}

func TestRefusesForgedAndReplayed(t *testing.T) {
	other, err := signing.NewSecret()
	require.NoError(t, err)
	r, url := start(t, reference.Config{})
	tests := []struct {
		name string
		d    delivery
	}{
		{"forged signature", sign(t, other, "dlv_1", time.Now(), `{}`)},
		{"replayed old timestamp", sign(t, secret, "dlv_1", time.Now().Add(-time.Hour), `{}`)},
		{"spec vector, long expired", sign(t, secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), `{"test": 2432232314}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, err := send(t, url, tt.d)
			require.NoError(t, err)
			assert.Equal(t, http.StatusUnauthorized, status)
			assert.Equal(t, 0, effects(t, r, tt.d.id))
		})
	}
	s := stats(t, url)
	assert.EqualValues(t, 3, s.Rejected)
	assert.Equal(t, receiver.Stats{}, s.Inbox, "no inbox row")
}

func TestQuarantine(t *testing.T) {
	r, url := start(t, reference.Config{})
	status, _, err := send(t, url, sign(t, secret, "dlv_1", time.Now(), `{"v":1}`))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	status, _, err = send(t, url, sign(t, secret, "dlv_1", time.Now(), `{"v":2}`))
	require.NoError(t, err)
	assert.Equal(t, receiver.StatusQuarantined, status)
	assert.EqualValues(t, 1, r.Quarantined())
	assert.Equal(t, 1, effects(t, r, "dlv_1"))
	assert.EqualValues(t, 1, stats(t, url).Inbox.Quarantined)
}

func TestRunSurvivesRestart(t *testing.T) {
	cfg := reference.Config{Addr: "127.0.0.1:0", DBPath: filepath.Join(t.TempDir(), "receiver.db"), Secrets: []string{secret}}
	d := sign(t, secret, "dlv_1", time.Now(), `{}`)

	serve := func(want int) reference.Stats {
		r, err := reference.New(cfg)
		require.NoError(t, err)
		defer r.Close()
		ln, err := net.Listen("tcp", cfg.Addr)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- r.Serve(ctx, ln) }()
		url := "http://" + ln.Addr().String()
		status, _, err := send(t, url, d)
		require.NoError(t, err)
		require.Equal(t, want, status)
		require.Eventually(t, func() bool { return stats(t, url).Inbox.Completed == 1 }, 5*time.Second, 10*time.Millisecond,
			"the worker completes the inbox row")
		s := stats(t, url)
		cancel()
		require.NoError(t, <-done)
		return s
	}
	first := serve(http.StatusOK)
	assert.EqualValues(t, 1, first.Accepted)
	second := serve(http.StatusOK)
	assert.EqualValues(t, 1, second.Duplicates, "the reopened inbox remembers the delivery")
	assert.Equal(t, map[string]int{"dlv_1": 1}, second.Effects)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.NoError(t, reference.Run(ctx, cfg))
}

func TestNewValidates(t *testing.T) {
	_, err := reference.New(reference.Config{})
	require.ErrorIs(t, err, receiver.ErrNoSecrets)
	_, err = reference.New(reference.Config{Secrets: []string{secret}, Faults: reference.Faults{FailFirst: -1}})
	require.Error(t, err)
}

// A reference receiver of an hmac-sha256 profile accepts what the profile
// signs, counts one effect per delivery ID of the profile's header, and
// refuses a Standard Webhooks delivery.
func TestProfileReceiver(t *testing.T) {
	profile := signing.Profile{Scheme: signing.SchemeHMACSHA256, Header: "MailFrame-Signature", Prefix: "sha256=",
		DeliveryIDHeader: "X-MailFrame-Delivery-Id"}
	r, url := start(t, reference.Config{Secrets: []string{secret}, Signing: profile})
	p, err := profile.Normalize()
	require.NoError(t, err)
	body := `{"n":1}`
	h := http.Header{"Content-Type": {"application/json"}}
	p.Sign(h, [][]byte{[]byte(secret)}, signing.Message{ID: "dlv_mf", EventID: "evt_mf", Attempt: 1, Timestamp: time.Now(), Body: []byte(body)})
	d := delivery{id: "dlv_mf", body: body, h: h}
	for range 2 {
		code, _, err := send(t, url, d)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, code)
	}
	assert.Equal(t, 1, effects(t, r, "dlv_mf"), "the resend is a duplicate")
	code, _, err := send(t, url, sign(t, secret, "dlv_sw", time.Now(), body))
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, code, "not the profile's signature")
}
