package scaleout

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hookd/hookd/apiclient/wire"
)

// raceAcrossAPIs posts one event ID with payload A six times to the first
// API process and with payload B six times to the second, all at once (two
// API processes sharing one PostgreSQL store), and checks that exactly one
// payload wins on both: its posts are accepted, once fresh and otherwise
// as duplicates, the others are refused, and both processes show the
// winner's record. It returns the winning payload's value.
func raceAcrossAPIs(t *testing.T, a, b *apiClient) string {
	t.Helper()
	type answer struct {
		payload string
		status  int
		dup     bool
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		answers []answer
		start   = make(chan struct{})
	)
	for i := range 12 {
		api, payload := a, "A"
		if i%2 == 1 {
			api, payload = b, "B"
		}
		wg.Go(func() {
			<-start
			var res wire.EventAccepted
			status := api.do("POST", "/v1/events", map[string]any{"event_id": "evt_two_apis", "type": "race.x", "payload": map[string]string{"v": payload}}, &res)
			mu.Lock()
			answers = append(answers, answer{payload, status, res.Duplicate})
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()

	winner, fresh := "", 0
	for _, an := range answers {
		if an.status == http.StatusAccepted {
			if winner != "" && winner != an.payload {
				t.Fatalf("both payloads accepted: %+v", answers)
			}
			winner = an.payload
			if !an.dup {
				fresh++
			}
		}
	}
	if winner == "" || fresh != 1 {
		t.Fatalf("winner %q, fresh accepts %d: %+v", winner, fresh, answers)
	}
	for _, an := range answers {
		if want := map[bool]int{true: http.StatusAccepted, false: http.StatusConflict}[an.payload == winner]; an.status != want {
			t.Errorf("post of %s: %d, want %d", an.payload, an.status, want)
		}
	}
	for _, api := range []*apiClient{a, b} {
		var rec wire.EventRecord
		deadline := time.Now().Add(30 * time.Second)
		for {
			if api.do("GET", "/v1/events/evt_two_apis", nil, &rec) != http.StatusOK || payloadV(rec.Payload) != winner {
				t.Fatalf("%s shows %+v, want payload %s", api.base, rec, winner)
			}
			if len(rec.Deliveries) == 1 && rec.Deliveries[0].Status == "delivered" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: delivery not delivered: %+v", api.base, rec)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return winner
}

// payloadV is the "v" of a payload {"v": ...}; "" for another.
func payloadV(payload []byte) string {
	var p struct{ V string }
	_ = json.Unmarshal(payload, &p)
	return p.V
}
