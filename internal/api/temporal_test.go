package api

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
)

// Temporal's NotFound is a 404 only where the caller named the thing;
// every other failure is a 503 that keeps its cause for the log.
func TestFromTemporal(t *testing.T) {
	assert.NoError(t, fromTemporal(nil, "describe delivery", "delivery not found"))

	nf := serviceerror.NewNotFound("workflow not found for ID: dlv_x")
	var e *Error
	require.ErrorAs(t, fromTemporal(nf, "describe delivery", "delivery not found"), &e)
	assert.Equal(t, &Error{Code: CodeNotFound, Message: "delivery not found"}, e)

	for _, err := range []error{nf, serviceerror.NewUnavailable("frontend down"), errors.New("deadline")} {
		got := fromTemporal(err, "list dead letters", "")
		assert.ErrorIs(t, got, errUnavailable)
		assert.ErrorIs(t, got, err, "the cause is kept")
		assert.Contains(t, got.Error(), "list dead letters")
	}
}
