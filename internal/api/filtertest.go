package api

import (
	"context"
	"errors"

	"github.com/hookd/hookd/internal/authz"
	"github.com/hookd/hookd/internal/contentfilter"
)

// FilterTest is a content filter tried on an example event: whether it
// matched, and when it failed instead, why (a contentfilter.Reason*).
type FilterTest struct {
	Matched bool
	Reason  string
}

// TestFilter compiles filter and evaluates it on an example event of
// eventType (the caller's tenant, event ID "evt_example") carrying payload,
// a JSON object, as fan-out would: the portal's "test this filter". It
// refuses, 400, a filter that does not compile (field "filter") and a
// payload that is not a JSON object of at most 64 KiB (field
// "example_payload").
func (s *Server) TestFilter(ctx context.Context, filter, eventType, payload string) (FilterTest, error) {
	if filter == "" {
		return FilterTest{}, invalid("filter", "is empty: there is nothing to test")
	}
	prg, err := contentfilter.Compile(filter)
	var ce *contentfilter.Error
	if errors.As(err, &ce) {
		return FilterTest{}, invalid("filter", "%s", ce.Message)
	}
	if err != nil {
		return FilterTest{}, err
	}
	p, err := contentfilter.ParsePayload(payload)
	if err != nil || len(payload) > 64<<10 {
		return FilterTest{}, invalid("example_payload", "must be a JSON object of at most 64 KiB")
	}
	matched, reason := prg.Match(contentfilter.Event{
		ID: "evt_example", Type: eventType, TenantID: authz.FromContext(ctx).TenantID(), Payload: p,
	})
	return FilterTest{Matched: matched, Reason: reason}, nil
}
