package receiver

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
)

// DefaultMaxBodyBytes caps the body Middleware reads when no cap is set.
const DefaultMaxBodyBytes int64 = 1 << 20

// MiddlewareOptions configures Middleware. The zero value is usable.
type MiddlewareOptions struct {
	// MaxBodyBytes caps the raw body; a larger one is answered 413.
	// Zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Logger receives one line per refused request; nil means slog.Default.
	// It never sees the body, a secret or the URL.
	Logger *slog.Logger
}

// Middleware reads the raw body (at most opts.MaxBodyBytes, 413 beyond),
// verifies it with v before anything else runs, and calls next with the
// verified Delivery in the request context (see FromContext) and the body
// readable again. A request that fails verification is answered 401 with a
// JSON error and never reaches next.
func Middleware(v *Verifier, opts MiddlewareOptions) func(http.Handler) http.Handler {
	limit := opts.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
			if err != nil {
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					log.WarnContext(r.Context(), "webhook refused", "reason", "body_too_large", "limit", limit)
					writeJSON(w, http.StatusRequestEntityTooLarge, errorBody{Error: "body_too_large"})
					return
				}
				log.WarnContext(r.Context(), "webhook refused", "reason", "read_body", "err", err)
				writeJSON(w, http.StatusBadRequest, errorBody{Error: "read_body"})
				return
			}
			d, err := v.Verify(body, r.Header)
			if err != nil {
				code := verifyErrorCode(err)
				log.WarnContext(r.Context(), "webhook refused", "reason", code,
					"webhook_id", clip(r.Header.Get(v.idHeader())), "remote", r.RemoteAddr)
				writeJSON(w, http.StatusUnauthorized, errorBody{Error: code})
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r.WithContext(NewContext(r.Context(), d)))
		})
	}
}

// verifyCodes maps verification errors to the codes sent in 401 bodies.
var verifyCodes = []struct {
	err  error
	code string
}{
	{ErrMissingHeader, "missing_header"},
	{ErrMalformed, "malformed_header"},
	{ErrTooOld, "timestamp_too_old"},
	{ErrTooNew, "timestamp_too_new"},
	{ErrNoMatch, "invalid_signature"},
}

func verifyErrorCode(err error) string {
	for _, c := range verifyCodes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return "invalid_signature"
}

// clip shortens an unverified header value before it is logged.
func clip(s string) string {
	const limit = 128
	if len(s) > limit {
		return s[:limit] + "..."
	}
	return s
}
