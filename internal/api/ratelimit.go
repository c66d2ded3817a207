package api

import (
	"bytes"
	"encoding/json"

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

// RateLimitPatch is a patch's rate_limit field: left out (Set false:
// unchanged), null (Value nil: no limit), or a limit.
type RateLimitPatch struct {
	Set   bool
	Value *rateLimitInput
}

// rateLimitInput is a limit as given; a field left out is nil.
type rateLimitInput struct {
	PerSecond *json.Number `json:"per_second"`
	Burst     *json.Number `json:"burst"`
}

// UnmarshalJSON takes an object or null.
func (p *RateLimitPatch) UnmarshalJSON(b []byte) error {
	p.Set, p.Value = true, nil
	if string(b) == "null" {
		return nil
	}
	var in rateLimitInput
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return invalid("rate_limit", "must be an object {\"per_second\": N, \"burst\": B} or null")
	}
	p.Value = &in
	return nil
}

// limit validates the patch's limit: per_second 1 to 10,000, burst 1 to
// per_second (1 when left out); nil for null.
func (p RateLimitPatch) limit() (*store.RateLimit, error) {
	if p.Value == nil {
		return nil, nil
	}
	if p.Value.PerSecond == nil {
		return nil, invalid("rate_limit.per_second", "is required")
	}
	n, err := p.Value.PerSecond.Int64()
	if err != nil || n < store.MinRatePerSecond || n > store.MaxRatePerSecond {
		return nil, invalid("rate_limit.per_second", "must be an integer from %d to %d", store.MinRatePerSecond, store.MaxRatePerSecond)
	}
	burst := int64(1)
	if p.Value.Burst != nil {
		burst, err = p.Value.Burst.Int64()
		if err != nil || burst < 1 || burst > n {
			return nil, invalid("rate_limit.burst", "must be an integer from 1 to per_second (%d)", n)
		}
	}
	return &store.RateLimit{PerSecond: int(n), Burst: int(burst)}, nil
}

// apply sets ep's limit from the patch, keeping its Since when
// the limit stays the same.
func (p RateLimitPatch) apply(ep *store.Endpoint) error {
	if !p.Set {
		return nil
	}
	l, err := p.limit()
	if err != nil {
		return err
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
// rate_limit.burst. The portal's form sends it.
func RateLimitOf(perSecond, burst string) RateLimitPatch {
	if perSecond == "" {
		return RateLimitPatch{Set: true}
	}
	in := &rateLimitInput{PerSecond: (*json.Number)(&perSecond)}
	if burst != "" {
		in.Burst = (*json.Number)(&burst)
	}
	return RateLimitPatch{Set: true, Value: in}
}
