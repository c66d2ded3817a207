package receiver

import (
	"encoding/json"
	"net/http"
)

// errorBody is the JSON the kit answers errors with: {"error": "<code>"}.
type errorBody struct {
	Error string `json:"error"`
}

// writeJSON answers status with v as JSON. Encoding errors are ignored: the
// status line is already sent.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
