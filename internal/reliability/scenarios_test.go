package reliability

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/receiver/reference"
)

func size(fast, fullSize int) int {
	if full {
		return fullSize
	}
	return fast
}

// waitDelivered waits until the receiver has an effect for want distinct
// deliveries.
func waitDelivered(t *testing.T, s *sink, want int, within time.Duration) {
	t.Helper()
	require.Eventually(t, func() bool {
		d, _, _ := s.tally(t)
		return d >= want
	}, within, 250*time.Millisecond)
}

// 1. kill -9 of hookd dev with deliveries in flight; a restart on the same
// data dir delivers every one; repeats arrive only as duplicate webhook-ids.
func TestKill9WithDeliveriesInFlight(t *testing.T) {
	n := size(100, 500)
	h := startHookd(t)
	// A slow receiver keeps the deliveries in flight when the process dies.
	s, _ := newSink(t, h, "rel.kill", reference.Faults{Delay: 2 * time.Second}, "1s", "2s", "5s", "10s")
	accepted := h.sendBatch("rel.kill", n)
	require.Equal(t, n, accepted)
	before, _, _ := s.tally(t)
	h.kill9()
	h.start()
	waitDelivered(t, s, n, 3*time.Minute)
	delivered, effects, dups := s.tally(t)
	require.Equal(t, n, effects, "one effect per delivery")
	report(row{scenario: "kill -9 mid-flight", accepted: accepted, delivered: delivered, duplicates: dups, effects: effects,
		dead: h.deadLetters(), lost: accepted - delivered, note: fmt.Sprintf("%d delivered before the kill", before)})
}

// 2. The receiver is down across several retry rounds, then returns: all
// are delivered within budget, none dead-lettered; jitter and the circuit's
// spread space out the recovery.
func TestReceiverOutage(t *testing.T) {
	n := size(30, 200)
	h := startHookd(t, "--circuit-cooldown", "3s", "--circuit-max-cooldown", "6s")
	s, _ := newSink(t, h, "rel.outage", reference.Faults{AlwaysFail: http.StatusServiceUnavailable}, "1s", "2s", "2s", "4s", "4s", "8s", "8s", "8s")
	accepted := h.sendBatch("rel.outage", n)
	time.Sleep(8 * time.Second) // several rounds of retries, the circuit opens
	back := time.Now()
	require.NoError(t, s.SetFaults(reference.Faults{}))
	waitDelivered(t, s, n, 2*time.Minute)
	spread := time.Since(back)
	delivered, effects, dups := s.tally(t)
	require.Zero(t, h.deadLetters())
	report(row{scenario: "receiver outage (8s)", accepted: accepted, delivered: delivered, duplicates: dups, effects: effects,
		lost: accepted - delivered, note: fmt.Sprintf("all delivered within %s of recovery", spread.Round(100*time.Millisecond))})
}

// 3. Lost ACK: the receiver commits, then drops the connection; hookd
// retries; the receiver sees a duplicate; one effect.
func TestLostAck(t *testing.T) {
	n := size(10, 50)
	h := startHookd(t, "--circuit-cooldown", "1s", "--circuit-max-cooldown", "2s")
	// The first answer to each delivery is lost after the commit.
	s, _ := newSink(t, h, "rel.lostack", reference.Faults{DropAfterCommit: n}, "1s", "1s")
	accepted := h.sendBatch("rel.lostack", n)
	require.Eventually(t, func() bool {
		_, _, dups := s.tally(t)
		return dups >= n
	}, time.Minute, 250*time.Millisecond)
	delivered, effects, dups := s.tally(t)
	require.Equal(t, n, delivered)
	require.Equal(t, n, effects, "exactly one effect per delivery")
	report(row{scenario: "lost ACK", accepted: accepted, delivered: delivered, duplicates: dups, effects: effects,
		dead: h.deadLetters(), lost: accepted - delivered, note: "every first ACK lost"})
}

// 4. Poison: an endpoint that always answers 500 gets exactly
// 1 + len(schedule) attempts, then a dead letter; repaired and redriven,
// each is delivered once.
func TestPoisonThenRedrive(t *testing.T) {
	n := size(5, 20)
	// The circuit opens after five failures and defers the rest, letting one
	// probe through per cooldown, so the remaining attempts go one at a time;
	// a 1s cooldown keeps the test quick. Deferrals never count as attempts.
	h := startHookd(t, "--circuit-cooldown", "1s", "--circuit-max-cooldown", "1s")
	schedule := []string{"1s", "1s", "1s"}
	s, epID := newSink(t, h, "rel.poison", reference.Faults{AlwaysFail: http.StatusInternalServerError}, schedule...)
	accepted := h.sendBatch("rel.poison", n)
	require.Eventually(t, func() bool { return h.deadLetters() == n }, time.Duration(n)*8*time.Second, 250*time.Millisecond)
	require.Equal(t, int64(n*(1+len(schedule))), s.Requests(), "attempts before dead-lettering")
	dead := h.deadLetters()

	require.NoError(t, s.SetFaults(reference.Faults{}))
	var job wire.RedriveStarted
	require.Equal(t, http.StatusAccepted, h.call("POST", "/v1/dead-letters/redrive", map[string]any{"endpoint_id": epID, "rate": 20}, &job))
	require.EqualValues(t, n, job.Matched)
	waitDelivered(t, s, n, time.Minute)
	delivered, effects, dups := s.tally(t)
	require.Equal(t, n, effects)
	report(row{scenario: "poison, then redrive", accepted: accepted, delivered: delivered, duplicates: dups, effects: effects,
		dead: dead, lost: accepted - delivered, note: fmt.Sprintf("%d attempts each before the dead letter", 1+len(schedule))})
}

// 5. 429 with Retry-After: the next attempt waits as told, not as the
// schedule says.
func TestRetryAfter(t *testing.T) {
	h := startHookd(t)
	s, _ := newSink(t, h, "rel.429", reference.Faults{FailFirst: 1, FailStatus: http.StatusTooManyRequests, RetryAfter: "3"}, "1s")
	accepted := h.sendBatch("rel.429", 1)
	waitDelivered(t, s, 1, 30*time.Second)
	delivered, effects, dups := s.tally(t)
	var id string
	st, err := s.Stats(t.Context())
	require.NoError(t, err)
	for k := range st.Effects {
		id = k
	}
	var d wire.Delivery
	require.Equal(t, http.StatusOK, h.call("GET", "/v1/deliveries/"+id, nil, &d))
	require.Len(t, d.Timeline, 2)
	require.Equal(t, 429, d.Timeline[0].Status)
	require.Equal(t, "retry-after", d.Timeline[0].DelayReason)
	gap := d.Timeline[1].Start.Sub(d.Timeline[0].Start)
	require.InDelta(t, 3.0, gap.Seconds(), 0.6)
	report(row{scenario: "429 + Retry-After: 3", accepted: accepted, delivered: delivered, duplicates: dups, effects: effects,
		lost: accepted - delivered, note: fmt.Sprintf("second attempt %s after the first", gap.Round(10*time.Millisecond))})
}
