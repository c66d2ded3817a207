package api

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/store"
)

// A patch's rate_limit: left out keeps it, null removes it, an object
// sets it (burst 1 when left out); an unchanged limit keeps its Since;
// refusals name rate_limit.per_second, rate_limit.burst or the unknown
// member.
func TestPatchRateLimit(t *testing.T) {
	s := &Server{}
	patch := func(body string) (wire.EndpointPatch, error) {
		var p wire.EndpointPatch
		return p, decodeEndpointBody([]byte(body), &p)
	}
	apply := func(body string, ep *store.Endpoint) error {
		p, err := patch(body)
		if err != nil {
			return err
		}
		return s.apply(p, ep)
	}
	since := time.Unix(100, 0)
	ep := &store.Endpoint{RateLimit: &store.RateLimit{PerSecond: 10, Burst: 2, Since: since}}
	require.NoError(t, apply(`{"description":"x"}`, ep))
	require.Equal(t, &store.RateLimit{PerSecond: 10, Burst: 2, Since: since}, ep.RateLimit, "left out: unchanged")
	require.NoError(t, apply(`{"rate_limit":{"per_second":10,"burst":2}}`, ep))
	require.Equal(t, since, ep.RateLimit.Since, "the same limit keeps its Since")
	require.NoError(t, apply(`{"rate_limit":{"per_second":50}}`, ep))
	require.Equal(t, &store.RateLimit{PerSecond: 50, Burst: 1}, ep.RateLimit, "burst 1 by default")
	require.NoError(t, apply(`{"rate_limit":null}`, ep))
	require.Nil(t, ep.RateLimit, "null removes it")
	require.NoError(t, apply(`{"rate_limit":{"per_second":10000,"burst":10000}}`, ep))
	require.Equal(t, 10000, ep.RateLimit.Burst)

	for body, field := range map[string]string{
		`{"rate_limit":{}}`:                            "rate_limit.per_second",
		`{"rate_limit":{"per_second":0}}`:              "rate_limit.per_second",
		`{"rate_limit":{"per_second":10001}}`:          "rate_limit.per_second",
		`{"rate_limit":{"per_second":1.5}}`:            "rate_limit.per_second",
		`{"rate_limit":{"per_second":10,"burst":0}}`:   "rate_limit.burst",
		`{"rate_limit":{"per_second":10,"burst":11}}`:  "rate_limit.burst",
		`{"rate_limit":{"per_second":10,"bursts":1}}`:  "rate_limit.bursts",
		`{"rate_limit":5}`:                             "rate_limit",
		`{"rate_limit":{"per_second":10,"burst":"x"}}`: "rate_limit",
	} {
		ep := &store.Endpoint{}
		err := apply(body, ep)
		var e *Error
		require.ErrorAs(t, err, &e, body)
		require.Equal(t, CodeInvalid, e.Code, body)
		require.Equal(t, field, e.Field, body)
		require.Nil(t, ep.RateLimit, body)
	}
}

// A limit changes when it is added, removed, or its rate or burst moves.
func TestRateLimitChanged(t *testing.T) {
	a := &store.RateLimit{PerSecond: 10, Burst: 1}
	require.False(t, rateLimitChanged(nil, nil))
	require.True(t, rateLimitChanged(nil, a))
	require.True(t, rateLimitChanged(a, nil))
	require.False(t, rateLimitChanged(a, &store.RateLimit{PerSecond: 10, Burst: 1, Since: time.Unix(1, 0)}))
	require.True(t, rateLimitChanged(a, &store.RateLimit{PerSecond: 10, Burst: 2}))
}
