package api

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

// matchingStore is fakeStore whose endpoint matching answers match.
type matchingStore struct {
	*fakeStore
	match func() ([]*store.Endpoint, error)
}

func (m matchingStore) MatchingEndpoints(context.Context, string, string) ([]*store.Endpoint, error) {
	return m.match()
}

// An event that fails alone fails with the same status and code inside a
// batch.
func TestBatchAnswersLikeSingleEvents(t *testing.T) {
	ep := &store.Endpoint{ID: "ep_on", URL: "https://example.com/h", Enabled: true}
	tests := []struct {
		name     string
		match    func() ([]*store.Endpoint, error)
		startErr error
		want     int
	}{
		{"endpoint store fails", func() ([]*store.Endpoint, error) { return nil, errors.New("database is locked") }, nil, http.StatusServiceUnavailable},
		{"Temporal refuses the start", func() ([]*store.Endpoint, error) { return []*store.Endpoint{ep}, nil }, errors.New("frontend unavailable"), http.StatusServiceUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, &fakeTemporal{startErr: tc.startErr})
			s.store = matchingStore{fakeStore: s.store.(*fakeStore), match: tc.match}
			s.publisher.Endpoints = s.store

			event := `{"event_id":"e1","type":"order.created","payload":{}}`
			code, single := post(t, s, context.Background(), "/v1/events", event)
			assert.Equal(t, tc.want, code)
			code, batch := post(t, s, context.Background(), "/v1/events/batch", `{"events":[`+event+`]}`)
			require.Equal(t, http.StatusOK, code)
			result := batch["results"].([]any)[0].(map[string]any)
			assert.Equal(t, float64(tc.want), result["status"], "the batch's status for the event")
			assert.Equal(t, single["error"], result["error"], "the same error body")
		})
	}
}
