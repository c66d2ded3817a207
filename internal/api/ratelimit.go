package api

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/store"
)

// rateLimitView is the limit as shown, its burst always given: nil for
// none.
func rateLimitView(l *store.RateLimit) *wire.RateLimit {
	if l == nil {
		return nil
	}
	burst := max(l.Burst, 1)
	return &wire.RateLimit{PerSecond: l.PerSecond, Burst: &burst}
}

// rateLimitNotObject is the refusal of a rate_limit that is not a limit
// or null.
const rateLimitNotObject = `must be an object {"per_second": N, "burst": B} or null`

// checkRateLimit checks the JSON of a body's rate_limit: null, or an
// object of per_second and burst, numbers (or numbers in strings). It
// passes the limit as the wire.RateLimit applyRateLimit refuses as the
// numbers deserve: per_second left out as 0, a per_second that is no
// integer (or is 0) as -1, a burst that is no integer as 0.
func checkRateLimit(b []byte) ([]byte, error) {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil, nil
	}
	// The numbers as written: the generated type's ints cannot hold 1.5.
	var in struct {
		PerSecond *json.Number `json:"per_second"`
		Burst     *json.Number `json:"burst"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		if isUnknownField(err) {
			return nil, invalid("rate_limit."+unknownField(err), "unknown field")
		}
		return nil, invalid("rate_limit", rateLimitNotObject)
	}
	var l wire.RateLimit
	if in.PerSecond != nil {
		n, err := in.PerSecond.Int64()
		if err != nil || n == 0 {
			n = -1
		}
		l.PerSecond = int(n)
	}
	if in.Burst != nil {
		n, err := in.Burst.Int64()
		if err != nil {
			n = 0
		}
		burst := int(n)
		l.Burst = &burst
	}
	return json.Marshal(l)
}

// applyRateLimit sets ep's limit from a patch's rate_limit (null: no
// limit), keeping its Since when the limit stays the same. The limit's
// per_second is 1 to 10,000 (0 is per_second left out), its burst 1 to
// per_second (1 when nil).
func applyRateLimit(p wire.Patch[wire.RateLimit], ep *store.Endpoint) error {
	if p.IsZero() {
		return nil
	}
	var l *store.RateLimit
	if v, ok := p.Value(); ok {
		n := v.PerSecond
		switch {
		case n == 0:
			return invalid("rate_limit.per_second", "is required")
		case n < store.MinRatePerSecond || n > store.MaxRatePerSecond:
			return invalid("rate_limit.per_second", "must be an integer from %d to %d", store.MinRatePerSecond, store.MaxRatePerSecond)
		}
		burst := wire.Deref(v.Burst)
		if v.Burst == nil {
			burst = 1
		}
		if burst < 1 || burst > n {
			return invalid("rate_limit.burst", "must be an integer from 1 to per_second (%d)", n)
		}
		l = &store.RateLimit{PerSecond: n, Burst: burst}
	}
	if l != nil && ep.RateLimit != nil && l.PerSecond == ep.RateLimit.PerSecond && l.Burst == ep.RateLimit.Burst {
		return nil
	}
	ep.RateLimit = l
	return nil
}

// rateLimitChanged reports whether the limit differs between before and
// after: its waiting deliveries then take new slots.
func rateLimitChanged(before, after *store.RateLimit) bool {
	if before == nil || after == nil {
		return before != after
	}
	return before.PerSecond != after.PerSecond || before.Burst != after.Burst
}

// RateLimitOf is the patch setting a limit of perSecond a second with
// burst as typed (an empty burst: 1), or removing the limit when
// perSecond is empty; its validation names rate_limit.per_second and
// rate_limit.burst, as for the body's rate_limit (checkRateLimit). The
// portal's form sends it.
func RateLimitOf(perSecond, burst string) wire.Patch[wire.RateLimit] {
	if perSecond == "" {
		return wire.Null[wire.RateLimit]()
	}
	// As checkRateLimit passes them: what is no integer is refused.
	l := wire.RateLimit{PerSecond: -1}
	if n, err := strconv.Atoi(perSecond); err == nil && n != 0 {
		l.PerSecond = n
	}
	if burst != "" {
		b, err := strconv.Atoi(burst)
		if err != nil {
			b = 0
		}
		l.Burst = &b
	}
	return wire.Set(l)
}
