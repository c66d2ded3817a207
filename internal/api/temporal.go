package api

import (
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"
)

// fromTemporal translates the error of a Temporal call into the API's; it
// is the one place that happens. Temporal's NotFound becomes a 404 with
// notFound as its message, when the call looked up what the caller named
// (notFound is not empty); any other failure is unavailable, a 503 the
// caller may retry, with what was being done kept for the log. A nil error
// stays nil.
func fromTemporal(err error, doing, notFound string) error {
	if err == nil {
		return nil
	}
	if notFound != "" && temporalNotFound(err) {
		return &Error{Code: CodeNotFound, Message: notFound}
	}
	return fmt.Errorf("%w: %s: %w", errUnavailable, doing, err)
}

// fromTemporalPage is fromTemporal for a list call given the page token
// from the request's cursor: Temporal refusing the token (an invalid
// argument) is the cursor's fault, a 400 naming it.
func fromTemporalPage(err error, doing string, token []byte) error {
	var badArg *serviceerror.InvalidArgument
	if token != nil && errors.As(err, &badArg) {
		return invalidCursor()
	}
	return fromTemporal(err, doing, "")
}

// temporalNotFound reports whether a Temporal call failed because what it
// named does not exist, for a caller to whom that is an answer, not an
// error (a delivery not started yet).
func temporalNotFound(err error) bool {
	var nf *serviceerror.NotFound
	return errors.As(err, &nf)
}
