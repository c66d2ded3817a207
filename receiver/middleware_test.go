package receiver

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// captureHandler records the delivery and body the wrapped handler saw.
type captureHandler struct {
	d    *Delivery
	body string
}

func (c *captureHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.d, _ = FromContext(r.Context())
	b, _ := io.ReadAll(r.Body)
	c.body = string(b)
	w.WriteHeader(http.StatusNoContent)
}

func TestMiddleware(t *testing.T) {
	const body = `{"card":"4111 1111 1111 1111"}`
	now := time.Now()
	tests := []struct {
		name     string
		h        http.Header
		body     string
		status   int
		wantCode string
	}{
		{"valid", signedHeader(t, vecSecret, "dlv_1", now, body), body, http.StatusNoContent, ""},
		{"forged", signedHeader(t, "whsec_"+strings.Repeat("A", 32), "dlv_1", now, body), body, http.StatusUnauthorized, "invalid_signature"},
		{"replayed", signedHeader(t, vecSecret, "dlv_1", now.Add(-time.Hour), body), body, http.StatusUnauthorized, "timestamp_too_old"},
		{"future", signedHeader(t, vecSecret, "dlv_1", now.Add(time.Hour), body), body, http.StatusUnauthorized, "timestamp_too_new"},
		{"unsigned", http.Header{}, body, http.StatusUnauthorized, "missing_header"},
		{"too large", signedHeader(t, vecSecret, "dlv_1", now, strings.Repeat("x", 65)), strings.Repeat("x", 65), http.StatusRequestEntityTooLarge, "body_too_large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			v, err := NewVerifier([]string{vecSecret})
			require.NoError(t, err)
			next := &captureHandler{}
			mw := Middleware(v, MiddlewareOptions{MaxBodyBytes: 64, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			w := post(mw(next), tt.h, tt.body)

			require.Equal(t, tt.status, w.Code)
			assert.NotContains(t, logs.String(), "4111", "body must not be logged")
			assert.NotContains(t, logs.String(), strings.TrimPrefix(vecSecret, "whsec_"), "secret must not be logged")
			if tt.wantCode == "" {
				require.NotNil(t, next.d)
				assert.Equal(t, "dlv_1", next.d.ID)
				assert.Equal(t, body, next.body, "handler can read the body again")
				return
			}
			assert.Nil(t, next.d, "handler must not run")
			assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
			var got errorBody
			require.NoError(t, json.NewDecoder(w.Body).Decode(&got))
			assert.Equal(t, tt.wantCode, got.Error)
			assert.Contains(t, logs.String(), tt.wantCode)
		})
	}
}
