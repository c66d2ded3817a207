package api

import (
	"context"
	"errors"

	"github.com/hookd/hookd/apiclient/wire"
)

// The service layer: the scoped operations behind the /v1 routes, exported
// so other surfaces of hookd (the consumer portal) call them in-process
// rather than over HTTP or through a copy of their rules. Each takes a
// context carrying the caller's authz.Scope (authz.NewContext) and applies
// exactly the checks its route applies: bad input comes back as *Error
// naming the field, anything outside the scope as *Error with
// CodeNotFound, and a Temporal outage as an error IsUnavailable reports.

// The API's views of its resources, as the routes answer them and the
// service methods return them.
type (
	// EndpointView is an endpoint; Secret is set only by CreateEndpoint.
	EndpointView = wire.Endpoint
	// EndpointPatch is what UpdateEndpoint changes: nil fields and zero
	// wire.Patch fields stay.
	EndpointPatch = wire.EndpointPatch
	// EndpointCreate is what CreateEndpoint creates from.
	EndpointCreate = wire.EndpointCreate
	// TestResult is the first attempt of a test event.
	TestResult = testOut
	// RecoverResult is what a recover changed and who asked for it: the
	// breaker's state before (after it the circuit is closed with no
	// failures counted), whether the endpoint was enabled again, and the
	// waiting deliveries its wake-up tells to try again, all within
	// Spread of At or, Paced, as fast as the backlog drains.
	RecoverResult = wire.Recovered
	// DeliveryRef is a delivery in a list: the delivery once, whatever
	// its runs, with its current (latest) run's status, the attempts of
	// every run and its latest attempt's HTTP status.
	DeliveryRef = wire.DeliveryRow
	// DeliveryView is a delivery as GET /v1/deliveries/{id} shows it:
	// the story of every run of its ID (the first, then one per
	// redrive), with the current run's status.
	DeliveryView = wire.Delivery
	// TimelineEntry is an entry of a delivery's timeline: an attempt
	// (Kind TimelineAttempt) or the redrive that started a run (Kind
	// TimelineRedrive, Redrive set).
	TimelineEntry = wire.TimelineEntry
	// DeadLetterFilter selects dead letters.
	DeadLetterFilter = deadLetterFilter
	// DeadLetterRef is a dead letter in a list: what its search
	// attributes and memo say.
	DeadLetterRef = wire.DeadLetterRow
	// DeadLetterView is one dead letter in full.
	DeadLetterView = wire.DeadLetter
)

// Kinds of a delivery's timeline entries.
const (
	TimelineAttempt = kindAttempt
	TimelineRedrive = kindRedrive
)

// IsUnavailable reports whether err is a failure worth retrying later: a
// Temporal outage.
func IsUnavailable(err error) bool { return errors.Is(err, errUnavailable) }

// Delivery returns a delivery with its timeline, if the scope of ctx may
// see it.
func (s *Server) Delivery(ctx context.Context, id string) (DeliveryView, error) {
	return s.readDelivery(ctx, id)
}
