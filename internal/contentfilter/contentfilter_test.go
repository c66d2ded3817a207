package contentfilter_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/contentfilter"
)

func event(t *testing.T, typ, body string) contentfilter.Event {
	t.Helper()
	p, err := contentfilter.ParsePayload(body)
	require.NoError(t, err)
	return contentfilter.Event{ID: "evt_1", Type: typ, TenantID: "acme", Payload: p}
}

func TestMatch(t *testing.T) {
	ev := event(t, "invoice.paid", `{"amount":1500,"currency":"EUR","tags":["vip","new"],"ratio":0.5,"big":12345678901234567890,"customer":{"id":"cus_1"}}`)
	for _, tc := range []struct {
		expr string
		want bool
	}{
		{`payload.amount > 1000 && payload.currency == "EUR"`, true},
		{`payload.amount > 1000.5`, true},
		{`payload.amount == 1500`, true},
		{`payload.amount == 1500.0`, true},
		{`payload.ratio < 1`, true},
		{`payload.big > 1e19`, true},
		{`type.startsWith("invoice.") && "vip" in payload.tags`, true},
		{`"gold" in payload.tags`, false},
		{`payload.customer.id == "cus_1" && tenant_id == "acme" && event_id == "evt_1"`, true},
		{`has(payload.missing) && payload.missing == 1`, false},
		{`payload.tags.exists(t, t.startsWith("n"))`, true},
		{`payload["currency"] == "USD"`, false},
		{`payload.currency`, false}, // dyn, not a bool at run time: a failure, below
	} {
		p, err := contentfilter.Compile(tc.expr)
		require.NoError(t, err, tc.expr)
		got, _ := p.Match(ev)
		require.Equal(t, tc.want, got, tc.expr)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`payload.amount >`, "Syntax error"},
		{`payload.amount > 1 &&`, "1:22"},                             // CEL's position
		{`unknown_var == 1`, "undeclared reference to 'unknown_var'"}, // type check
		{`type == 1`, "no matching overload"},
		{`type + "x"`, "must yield a bool, not string"},
		{`payload.amount + 1`, "must yield a bool, not int"},
		{`payload.flag`, ""}, // dyn: accepted, a bool or a failure at run time
		{`size(type)`, "must yield a bool, not int"},
		{``, "is empty"},
		{"  \n", "is empty"},
		{`type == "` + strings.Repeat("x", contentfilter.MaxSize) + `"`, "at most 2048 bytes"},
	} {
		_, err := contentfilter.Compile(tc.expr)
		if tc.want == "" {
			require.NoError(t, err, tc.expr)
			continue
		}
		var ce *contentfilter.Error
		require.True(t, errors.As(err, &ce), "%q: %v", tc.expr, err)
		require.Contains(t, ce.Message, tc.want, tc.expr)
	}
}

func TestRunTimeFailuresDoNotMatch(t *testing.T) {
	ev := event(t, "order.created", `{"amount":"12","items":[1,2,3]}`)
	for _, tc := range []struct{ expr, reason string }{
		{`payload.missing > 1000`, contentfilter.ReasonNoSuchKey},
		{`payload.amount > 1000`, contentfilter.ReasonType},
		{`payload.amount`, contentfilter.ReasonNotBool},
		{`int(payload.amount) / 0 == 1`, contentfilter.ReasonEvalFailed},
	} {
		p, err := contentfilter.Compile(tc.expr)
		require.NoError(t, err, tc.expr)
		matched, reason := p.Match(ev)
		require.False(t, matched, tc.expr)
		require.Equal(t, tc.reason, reason, tc.expr)
	}
}

// An expression whose work grows with the payload stops at the cost limit
// and does not match; the same expression on a small payload matches.
func TestCostLimit(t *testing.T) {
	p, err := contentfilter.Compile(`payload.items.map(x, payload.items.map(y, x * y)).size() > 0`)
	require.NoError(t, err)
	small := event(t, "t", `{"items":[1,2,3]}`)
	matched, reason := p.Match(small)
	require.True(t, matched)
	require.Empty(t, reason)

	items := make([]string, 500)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	big := event(t, "t", `{"items":[`+strings.Join(items, ",")+`]}`)
	matched, reason = p.Match(big)
	require.False(t, matched)
	require.Equal(t, contentfilter.ReasonCostLimit, reason)
}

func TestParsePayload(t *testing.T) {
	_, err := contentfilter.ParsePayload(`[1,2]`)
	require.Error(t, err)
	_, err = contentfilter.ParsePayload(`{"a":`)
	require.Error(t, err)
	p, err := contentfilter.ParsePayload(`{"n":3,"f":1.5,"l":[{"m":7}]}`)
	require.NoError(t, err)
	require.Equal(t, int64(3), p["n"])
	require.Equal(t, 1.5, p["f"])
	require.Equal(t, int64(7), p["l"].([]any)[0].(map[string]any)["m"])
}

func BenchmarkMatch(b *testing.B) {
	p, err := contentfilter.Compile(`payload.amount > 1000 && payload.currency == "EUR"`)
	require.NoError(b, err)
	body := `{"order_id":"ord_4711","amount":1299,"currency":"EUR","customer":{"id":"cus_42","email":"buyer@example.com"},"items":[{"sku":"sku-1","qty":2},{"sku":"sku-2","qty":1}]}`
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := contentfilter.ParsePayload(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	pl, _ := contentfilter.ParsePayload(body)
	ev := contentfilter.Event{ID: "e", Type: "t", Payload: pl}
	b.Run("eval", func(b *testing.B) {
		for b.Loop() {
			if ok, _ := p.Match(ev); !ok {
				b.Fatal("no match")
			}
		}
	})
}
