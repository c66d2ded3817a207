package api

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/store"
)

// An endpoint body's fault named is the one encoding/json would name
// first: a malformed object field (auth, tls, signing, rate_limit,
// filter) before an unknown or mistyped field anywhere, that before a
// value the rules refuse, and among faults of a kind the first in the
// document.
func TestEndpointBodyFaultOrder(t *testing.T) {
	s := &Server{}
	for body, field := range map[string]string{
		`{"bogus":1,"auth":5}`:                                                      "auth",
		`{"enabled":"x","tls":{"key":"k"}}`:                                         "tls.key",
		`{"filter":5,"auth":5}`:                                                     "filter",
		`{"auth":5,"filter":5}`:                                                     "auth",
		`{"bogus":1,"signing":null}`:                                                "signing",
		`{"url":5,"rate_limit":{}}`:                                                 "url",
		`{"rate_limit":{"per_second":1.5},"url":5}`:                                 "url",
		`{"url":"ftp://x","rate_limit":{"per_second":1.5}}`:                         "url",
		`{"url":"https://example.com/","rate_limit":{"burst":2.5}}`:                 "rate_limit.per_second",
		`{"url":"https://example.com/","Rate_Limit":{"per_second":0}}`:              "rate_limit.per_second",
		`{"url":"https://example.com/","rate_limit":{"per_second":10,"burst":2.5}}`: "rate_limit.burst",
		`{"url":"https://example.com/","rate_limit":{"per_second":"x"}}`:            "rate_limit",
		`{"url":"https://example.com/"} trailing`:                                   "body",
		`{"auth":5} trailing`:                                                       "auth",
	} {
		var p wire.EndpointPatch
		err := decodeEndpointBody([]byte(body), &p)
		if err == nil {
			err = s.apply(p, &store.Endpoint{})
		}
		requireField(t, err, field, body)
	}
	// A number in a string is a number, as it always was.
	var p wire.EndpointPatch
	require.NoError(t, decodeEndpointBody([]byte(`{"rate_limit":{"per_second":"5","burst":"2"}}`), &p))
	ep := &store.Endpoint{}
	require.NoError(t, s.apply(p, ep))
	require.Equal(t, &store.RateLimit{PerSecond: 5, Burst: 2}, ep.RateLimit)
}
