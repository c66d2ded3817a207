package wire

import (
	"encoding/json"
	"testing"
)

// A Patch field left out is omitted, null is sent as null, a value as
// itself; decoding tells the three apart again.
func TestPatchRoundTrip(t *testing.T) {
	type body struct {
		A Patch[RateLimit] `json:"a,omitempty,omitzero"`
	}
	for _, c := range []struct {
		in   Patch[RateLimit]
		json string
	}{
		{Patch[RateLimit]{}, `{}`},
		{Null[RateLimit](), `{"a":null}`},
		{Set(RateLimit{PerSecond: 5}), `{"a":{"per_second":5}}`},
	} {
		b, err := json.Marshal(body{A: c.in})
		if err != nil || string(b) != c.json {
			t.Fatalf("%+v encoded as %s (%v), want %s", c.in, b, err, c.json)
		}
		var got body
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if got.A != c.in {
			t.Fatalf("%s decoded as %+v, want %+v", b, got.A, c.in)
		}
	}
	p := Set(RateLimit{PerSecond: 5})
	if v, ok := p.Value(); !ok || v.PerSecond != 5 || p.IsNull() || p.IsZero() {
		t.Fatalf("Set: %+v %v", v, ok)
	}
	if _, ok := Null[RateLimit]().Value(); ok || !Null[RateLimit]().IsNull() {
		t.Fatal("Null has a value")
	}
	var bad body
	if err := json.Unmarshal([]byte(`{"a":{"per_second":"x"}}`), &bad); err == nil {
		t.Fatal("decoded a string per_second")
	}
}
