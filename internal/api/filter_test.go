package api

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/store"
)

// A patch's filter: left out keeps it, null or "" removes it, a string
// sets it once it compiles; refusals name "filter" with CEL's message.
func TestPatchFilter(t *testing.T) {
	s := &Server{}
	patch := func(body string) wire.EndpointPatch {
		var p wire.EndpointPatch
		require.NoError(t, decodeEndpointBody([]byte(body), &p), body)
		return p
	}
	ep := &store.Endpoint{Filter: `type == "a"`}
	require.NoError(t, s.apply(patch(`{"description":"x"}`), ep))
	require.Equal(t, `type == "a"`, ep.Filter, "left out: unchanged")
	require.NoError(t, s.apply(patch(`{"filter":"payload.amount > 1000"}`), ep))
	require.Equal(t, "payload.amount > 1000", ep.Filter)
	require.NoError(t, s.apply(patch(`{"filter":null}`), ep))
	require.Empty(t, ep.Filter, "null removes it")
	ep.Filter = `type == "a"`
	require.NoError(t, s.apply(patch(`{"filter":""}`), ep))
	require.Empty(t, ep.Filter, `"" removes it`)

	var p wire.EndpointPatch
	err := decodeEndpointBody([]byte(`{"filter":5}`), &p)
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, "filter", e.Field)

	for expr, want := range map[string]string{
		`payload.amount >`:         "<input>:1:17: Syntax error",
		`payload.amount > "x" + 1`: "no matching overload",
		`type`:                     "must yield a bool, not string",
		`nope == 1`:                "undeclared reference to 'nope'",
		`type == "` + strings.Repeat("x", 2048) + `"`: "at most 2048 bytes",
	} {
		ep := &store.Endpoint{}
		err := s.apply(patch(`{"filter":`+quote(expr)+`}`), ep)
		var e *Error
		require.ErrorAs(t, err, &e, expr)
		require.Equal(t, CodeInvalid, e.Code)
		require.Equal(t, "filter", e.Field)
		require.Contains(t, e.Message, want, expr)
		require.Empty(t, ep.Filter)
	}
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
