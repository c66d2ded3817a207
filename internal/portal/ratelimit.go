package portal

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/api"
)

// rateLimitForm is the endpoint form's rate limit: per second and burst
// as typed, both empty for none.
type rateLimitForm struct {
	RatePerSecond, RateBurst string
}

func rateLimitFormOf(ep api.EndpointView) rateLimitForm {
	if ep.RateLimit == nil {
		return rateLimitForm{}
	}
	return rateLimitForm{RatePerSecond: strconv.Itoa(ep.RateLimit.PerSecond), RateBurst: strconv.Itoa(wire.Deref(ep.RateLimit.Burst))}
}

func readRateLimitForm(r *http.Request) rateLimitForm {
	return rateLimitForm{RatePerSecond: strings.TrimSpace(r.PostFormValue("rate_per_second")), RateBurst: strings.TrimSpace(r.PostFormValue("rate_burst"))}
}

// patch sets the form's limit on p: none when per second is empty.
func (f rateLimitForm) patch(p *api.EndpointPatch) {
	p.RateLimit = api.RateLimitOf(f.RatePerSecond, f.RateBurst)
}

// rateLimitError is the form field an API error about the limit is
// shown at: rate_limit.per_second at rate_per_second, .burst at
// rate_burst.
func rateLimitError(e *api.Error) *api.Error {
	if field, ok := strings.CutPrefix(e.Field, "rate_limit."); ok {
		return &api.Error{Code: e.Code, Field: "rate_" + field, Message: e.Message}
	}
	return e
}
