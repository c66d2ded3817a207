// Package storetest is the conformance suite every store.Store
// implementation must pass. An implementation's test calls Run with a
// function that opens a fresh, empty store.
package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
	"github.com/hookd/hookd/internal/store/secretbox"
)

// RawSecretReader is implemented by stores whose at-rest secret values the
// suite can inspect, to check that they are encrypted.
type RawSecretReader interface {
	// RawSecrets returns the endpoint's stored secret values as they are at
	// rest, expired ones included, and none for an unknown endpoint.
	RawSecrets(ctx context.Context, endpointID string) ([][]byte, error)
}

// Opener returns a new, empty store; Run closes it.
type Opener func(t *testing.T) store.Store

// Run runs the suite, each case on its own store from open.
func Run(t *testing.T, open Opener) {
	cases := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"CreateGetRoundTrip", testCreateGet},
		{"Update", testUpdate},
		{"Delete", testDelete},
		{"NotFound", testNotFound},
		{"CreateValidates", testCreateValidates},
		{"Pagination", testPagination},
		{"MatchingEndpoints", testMatching},
		{"SecretsEncryptedAtRest", testEncryptedAtRest},
		{"RotationOverlap", testRotationOverlap},
		{"RotationWithoutOverlap", testRotationWithoutOverlap},
		{"RotationNeverExtendsExpiry", testRotationNeverExtends},
		{"DeleteCascadesSecrets", testDeleteCascades},
		{"ConcurrentReadsAndWrites", testConcurrent},
		{"Circuits", testCircuits},
		{"ReadForAttempt", testReadForAttempt},
		{"Stats", testStats},
		{"EventClaimThenGet", testClaimThenGet},
		{"EventConcurrentClaims", testConcurrentClaims},
		{"EventList", testListEvents},
		{"EventListFilters", testListEventFilters},
		{"EventPrune", testPruneEvents},
		{"EventExpunge", testExpunge},
		{"PropagateTrace", testPropagateTrace},
		{"SigningProfile", testSigningProfile},
		{"DisableEndpoint", testDisableEndpoint},
		{"RateLimit", testRateLimit},
		{"RateSlots", testRateSlots},
		{"RateSlotsConcurrent", testRateSlotsConcurrent},
	}
	cases = append(append(append(append(append(append(append(append(cases, tenantCases...), portalCases...), incarnationCases...), credentialCases...), filterCases...), brandingCases...), eventTypeCases...), outboxCases...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { require.NoError(t, s.Close()) })
			c.fn(t, s)
		})
	}
}

// t0 is the suite's clock origin; its nanoseconds check that times round
// trip exactly.
var t0 = time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)

// at returns t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// newEndpoint returns a valid endpoint with every field set, created at
// at(created).
func newEndpoint(id string, created time.Duration, eventTypes ...string) *store.Endpoint {
	return &store.Endpoint{
		ID:            id,
		URL:           "https://example.com/hooks/" + id,
		Description:   "endpoint " + id,
		EventTypes:    eventTypes,
		Enabled:       true,
		RetrySchedule: []time.Duration{5 * time.Second, 1500 * time.Millisecond, 2*time.Hour + time.Nanosecond},
		Timeout:       15 * time.Second,
		Metadata:      map[string]string{"team": "payments", "id": id},
		CreatedAt:     at(created),
		UpdatedAt:     at(created),
	}
}

// secretFor returns a distinct, recognisable plaintext secret.
func secretFor(id string, n int) string {
	return fmt.Sprintf("whsec_%s-plaintext-secret-%d", id, n)
}

func create(t *testing.T, s store.Store, ep *store.Endpoint) {
	t.Helper()
	require.NoError(t, s.CreateEndpoint(context.Background(), ep, secretFor(ep.ID, 0)))
}

func ids(eps []*store.Endpoint) []string {
	out := make([]string, len(eps))
	for i, ep := range eps {
		out[i] = ep.ID
	}
	return out
}

// Key returns a new random master key for a store under test.
func Key(t testing.TB) []byte {
	t.Helper()
	key, err := secretbox.GenerateKey()
	require.NoError(t, err)
	return key
}
