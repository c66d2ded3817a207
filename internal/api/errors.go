package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/hookd/hookd/apiclient/wire"
	"github.com/hookd/hookd/internal/catalog"
)

// Error codes, each answered with one HTTP status.
const (
	CodeInvalid          = "invalid"
	CodeUnauthorized     = "unauthorized"
	CodeForbidden        = "forbidden"
	CodeNotFound         = "not_found"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeConflict         = "conflict"
	CodeTooLarge         = "too_large"
	CodeRateLimited      = "rate_limited"
	CodeUnavailable      = "unavailable"
	CodeInternal         = "internal"
)

var statusOf = map[string]int{
	CodeInvalid:          http.StatusBadRequest,
	CodeUnauthorized:     http.StatusUnauthorized,
	CodeForbidden:        http.StatusForbidden,
	CodeNotFound:         http.StatusNotFound,
	CodeMethodNotAllowed: http.StatusMethodNotAllowed,
	CodeConflict:         http.StatusConflict,
	CodeTooLarge:         http.StatusRequestEntityTooLarge,
	CodeRateLimited:      http.StatusTooManyRequests,
	CodeUnavailable:      http.StatusServiceUnavailable,
	CodeInternal:         http.StatusInternalServerError,
}

// Error is an API error: a code, the request field at fault (if any) and a
// message safe to show the caller. Body is how the API answers it.
type Error struct {
	Code    string
	Field   string
	Message string
	// Limit names the quota (Limits) a 409 or 429 is about.
	Limit string
	// Details are where and why a payload or example fails its event
	// type's schema, the first failures.
	Details []catalog.Problem
}

// Body is the error as the API answers it: {"error": {...}}.
func (e *Error) Body() wire.ErrorBody { return wire.ErrorBody{Error: e.detail()} }

// detail is the error's object in an answer.
func (e *Error) detail() wire.ErrorDetail {
	d := wire.ErrorDetail{Code: wire.ErrorDetailCode(e.Code), Field: e.Field, Message: e.Message, Limit: wire.ErrorDetailLimit(e.Limit)}
	for _, p := range e.Details {
		d.Details = append(d.Details, wire.SchemaProblem{Pointer: p.Pointer, Reason: p.Reason})
	}
	return d
}

func (e *Error) Error() string {
	if e.Field != "" {
		return e.Field + ": " + e.Message
	}
	return e.Message
}

// invalid returns a 400 naming the field.
func invalid(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// writeError answers with err as JSON.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := s.apiError(r, err)
	setRetryAfter(w, err)
	writeJSON(w, statusOf[e.Code], e.Body())
}

// apiError is the API error err is answered with. Errors that are not
// *Error are logged and become an opaque 500 (or 503 when marked
// unavailable). A batch maps each event's error with it too, so an event
// fails with the same status in a batch as alone.
func (s *Server) apiError(r *http.Request, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	s.log.Error("request failed", "method", r.Method, "route", routePattern(r), "error", err)
	if errors.Is(err, errUnavailable) {
		return &Error{Code: CodeUnavailable, Message: "temporarily unavailable; retry"}
	}
	return &Error{Code: CodeInternal, Message: "internal error"}
}

// errUnavailable marks failures worth retrying (Temporal unreachable).
var errUnavailable = errors.New("unavailable")

// writeJSON answers status with v as JSON. Payloads go out as they came
// in: "<", ">" and "&" are not escaped (the answer is application/json,
// never HTML), so a client reads back the bytes it sent.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		slog.Debug("write response", "error", err)
	}
}
